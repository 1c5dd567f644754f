package mimetype

import (
	"os"
	"testing"
)

// TestMain checks that package init did not build the tree (mcphost's
// change, README.mcphost.md), then builds it: upstream's tests read root
// and the nodes directly.
func TestMain(m *testing.M) {
	if root != nil || zip != nil || text != nil {
		panic("the tree was built at package init")
	}
	ensureTree()
	os.Exit(m.Run())
}

// TestTreeComplete: every node of the tree is assigned, once, and is
// reachable from root (a node left out of buildTree would be nil in some
// parent's children).
func TestTreeComplete(t *testing.T) {
	seen := map[*MIME]bool{}
	var walk func(m *MIME)
	walk = func(m *MIME) {
		if m == nil {
			t.Fatal("a nil node in the tree")
		}
		if seen[m] {
			return
		}
		seen[m] = true
		for _, c := range m.children {
			walk(c)
		}
	}
	walk(root)
	if n := len(root.flatten()); n != len(seen) || n < 150 {
		t.Fatalf("flatten has %d nodes, the walk %d", n, len(seen))
	}
}

// TestNoSharedNodes: no node is a child of two parents. newMIME sets each
// child's parent, so with a shared node the order buildTree builds the
// parents in (dependency order, not upstream's declaration order) would
// decide its parent; if an upgrade brings one, order buildTree as upstream.
func TestNoSharedNodes(t *testing.T) {
	parent := map[*MIME]*MIME{}
	for _, m := range root.flatten() {
		for _, c := range m.children {
			if p, ok := parent[c]; ok && p != m {
				t.Errorf("%s is a child of %s and %s", c.mime, p.mime, m.mime)
			}
			parent[c] = m
			if c.parent != m {
				t.Errorf("%s: parent %s, listed by %s", c.mime, c.parent.mime, m.mime)
			}
		}
	}
}
