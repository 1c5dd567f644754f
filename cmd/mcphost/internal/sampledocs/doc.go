// Package sampledocs embeds the sample documents that mcphost serves when it
// is run without a source flag: onboarding guides, runbooks and policies of
// three teams (platform, payments, support), laid out as
// {team}/{kind}/{name}, plus images, a >1 MB changelog and a hostile ticket
// export. The generated files come from ./cmd/mcphost/internal/gendocs.
//
// The folder is also what `make demo` serves with -docs, so editing a file
// here shows up live in the demo. Its Go files (doc.go, embed.go) sit at the
// root, where the documents server never looks: it reads only
// {team}/{kind}/{name} paths.
package sampledocs
