module github.com/seer-tools/seer

go 1.26.8

require (
	github.com/go-air/gini v1.0.4
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.2
	github.com/segmentio/encoding v0.3.4
	go.lsp.dev/jsonrpc2 v0.10.0
	go.lsp.dev/protocol v0.12.0
	go.lsp.dev/uri v0.3.0
	golang.org/x/tools v0.52.0
)

require (
	github.com/segmentio/asm v1.1.3 // indirect
	go.lsp.dev/pkg v0.0.0-20210717090340-384b27a52fb2 // indirect
	go.uber.org/multierr v1.10.0 // indirect
	go.uber.org/zap v1.28.0 // indirect
	golang.org/x/mod v0.42.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/text v0.14.0 // indirect
)
