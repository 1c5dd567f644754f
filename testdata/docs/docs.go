// Package docs embeds the sample documents that mcphost serves when it is
// run without a source flag: onboarding guides, runbooks and policies of
// three teams (platform, payments, support), laid out as
// {team}/{kind}/{name}, plus images, a >1 MB changelog and a hostile ticket
// export. The generated files come from ./cmd/mcphost/internal/gendocs.
//
// This file is the only non-document file here; the documents server reads
// only {team}/{kind}/{name} paths, so it never lists it.
package docs

import "embed"

// FS holds every document under its {team}/{kind}/{name} path.
//
//go:embed */*
var FS embed.FS
