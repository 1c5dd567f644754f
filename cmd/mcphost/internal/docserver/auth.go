//go:build !js

package docserver

import (
	"bufio"
	"crypto/subtle"
	"fmt"
	"io"
	"slices"
	"strings"
)

// A Principal is who a connection acts for: the teams whose documents it may
// see. Every door of the documents server consults it.
type Principal struct {
	name  string          // non-secret, for logs: "local" or "teams:a,b"
	all   bool            // may read every team
	teams map[string]bool // the teams it may read when !all
}

// localPrincipal is the one principal without -token-file: it reads every team.
var localPrincipal = &Principal{name: "local", all: true}

func (p *Principal) mayRead(team string) bool { return p.all || p.teams[team] }

// tokenEntry is one line of the token file.
type tokenEntry struct {
	token []byte
	p     *Principal
}

// Principals maps tokens to principals. A nil *Principals means no token
// file: everyone is the local principal, who reads every team.
type Principals struct {
	entries []tokenEntry
	byName  map[string]*Principal
}

// ParseTokenFile reads lines "token team1,team2" ("*" grants every team;
// blank lines and lines starting with # are skipped). Tokens must be usable
// as a WebSocket subprotocol suffix: [A-Za-z0-9._~-]. requireTeams is false
// for the gateways, where a token only admits a connection.
func ParseTokenFile(r io.Reader, requireTeams bool) (*Principals, error) {
	ps := &Principals{byName: map[string]*Principal{}}
	sc := bufio.NewScanner(r)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		fields := strings.Fields(text)
		if len(fields) > 2 {
			return nil, fmt.Errorf("line %d: want \"token team1,team2\", got %d fields", line, len(fields))
		}
		tok := fields[0]
		if err := checkToken(tok); err != nil {
			return nil, fmt.Errorf("line %d: %v", line, err)
		}
		for _, e := range ps.entries {
			if string(e.token) == tok {
				return nil, fmt.Errorf("line %d: duplicate token", line)
			}
		}
		var teams []string
		if len(fields) == 2 {
			for t := range strings.SplitSeq(fields[1], ",") {
				if t = strings.TrimSpace(t); t != "" {
					teams = append(teams, t)
				}
			}
		}
		if len(teams) == 0 && requireTeams {
			return nil, fmt.Errorf("line %d: no teams after the token", line)
		}
		slices.Sort(teams)
		teams = slices.Compact(teams)
		p := &Principal{name: "teams:" + strings.Join(teams, ","), teams: map[string]bool{}}
		for _, t := range teams {
			if t == "*" {
				p.all = true
			}
			p.teams[t] = true
		}
		if old, ok := ps.byName[p.name]; ok {
			p = old // same scope, same principal
		}
		ps.byName[p.name] = p
		ps.entries = append(ps.entries, tokenEntry{token: []byte(tok), p: p})
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(ps.entries) == 0 {
		return nil, fmt.Errorf("no tokens")
	}
	return ps, nil
}

func checkToken(t string) error {
	for i := 0; i < len(t); i++ {
		c := t[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '~' || c == '-') {
			return fmt.Errorf("token has character %q at offset %d; allowed: [A-Za-z0-9._~-]", c, i)
		}
	}
	return nil
}

// Authenticate maps a token to a principal name, comparing every entry in
// constant time so the answer's timing says nothing about near misses.
func (ps *Principals) Authenticate(token string) (string, bool) {
	var found *Principal
	for _, e := range ps.entries {
		if subtle.ConstantTimeCompare(e.token, []byte(token)) == 1 {
			found = e.p
		}
	}
	if found == nil {
		return "", false
	}
	return found.name, true
}

// Lookup returns the principal of an authenticated connection (the name
// [Principals.Authenticate] returned), or nil for a name it never returned;
// on a nil *Principals, the local principal.
func (ps *Principals) Lookup(name string) *Principal {
	if ps == nil {
		return localPrincipal
	}
	return ps.byName[name]
}
