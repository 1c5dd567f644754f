package sampledocs

import "embed"

// FS holds every document under its {team}/{kind}/{name} path.
//
//go:embed */*
var FS embed.FS
