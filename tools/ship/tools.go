//go:build tools

// Package tools pins the commands this module builds (crane, helm, oauth2-proxy), so that
// `go mod tidy` keeps every module they need in go.sum.
package tools

import (
	_ "github.com/google/go-containerregistry/cmd/crane"
	_ "github.com/oauth2-proxy/oauth2-proxy/v7"
	_ "helm.sh/helm/v4/cmd/helm"
)
