module github.com/choria-io/fisk-ai-ts/scripts/go-fixtures

go 1.19
