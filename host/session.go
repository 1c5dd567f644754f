package host

import (
	"context"
	"encoding/json"

	"github.com/mcphost/mcphost/bridge"
)

// A session is one connection as the engine uses it. *bridge.Session is the
// production one; the model-based tests put a fake with versioned documents
// and scripted latencies behind it.
//
// Watch must never call back synchronously: the engine calls it with its
// lock held, so that subscription changes reach the session in the order of
// the state changes that caused them. The callbacks of the [bridge.Watcher]
// given at dial time carry the outcome.
type session interface {
	Supports(method string) bool
	Read(ctx context.Context, uri string) (*bridge.ReadResult, error)
	ListResources(ctx context.Context, onPage bridge.PageFunc[bridge.Resource]) (*bridge.List[bridge.Resource], error)
	ListTemplates(ctx context.Context, onPage bridge.PageFunc[bridge.ResourceTemplate]) (*bridge.List[bridge.ResourceTemplate], error)
	ListTools(ctx context.Context) (*bridge.List[bridge.Tool], error)
	Complete(ctx context.Context, uriTemplate, name, value string, args map[string]string) (*bridge.Completion, error)
	CallTool(ctx context.Context, name string, args any) (json.RawMessage, error)
	Watch(add, remove []string)
	InitializeResult() bridge.InitializeResult
	Done() <-chan struct{}
	Err() error
	Close() error
}

// A dialer opens a session speaking protocol ("" or "auto" to negotiate)
// whose subscription news goes to w.
type dialer func(ctx context.Context, w bridge.Watcher, protocol string) (session, error)

var _ session = (*bridge.Session)(nil)

// bridgeDialer dials url with the host's options.
func bridgeDialer(url string, o *Options) dialer {
	return func(ctx context.Context, w bridge.Watcher, protocol string) (session, error) {
		bo := &bridge.Options{
			ClientInfo: o.ClientInfo, Token: o.Token, ReadLimit: o.ReadLimit, PageCap: o.PageCap, MaxDescriptors: o.MaxDescriptors,
			Timeout: o.Timeout, ToolTimeout: o.ToolTimeout, Watcher: w, Protocol: protocol,
		}
		if k, ok := w.(sink); ok {
			bo.OnListChanged = func(list string) {
				if list == "prompts" {
					k.h.promptsChanged(k.gen)
				}
			}
		}
		s, err := bridge.Dial(ctx, url, bo)
		if err != nil {
			return nil, err
		}
		return s, nil
	}
}

// sink is the Watcher of one session generation: news from a session the
// host has already replaced is ignored.
type sink struct {
	h   *Host
	gen uint64
}

func (k sink) Acked(uri string)              { k.h.verdict(k.gen, uri, nil) }
func (k sink) Refused(uri string, err error) { k.h.verdict(k.gen, uri, err) }
func (k sink) Lost(uris []string, why error) { k.h.lost(k.gen, uris, why) }
func (k sink) Updated(uri string)            { k.h.updated(k.gen, uri) }
func (k sink) ListChanged()                  { k.h.listChanged(k.gen) }
