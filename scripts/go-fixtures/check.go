package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"time"
)

// The version 3 record as the Go implementation's structs type it (record.go and
// llm/types.go), with concrete payloads where records.go keeps interfaces for writing
// every version.
type recordV3 struct {
	Seq        uint64          `json:"seq"`
	Protocol   string          `json:"protocol"`
	Meta       *metaV3         `json:"meta,omitempty"`
	Assistant  *assistantV3    `json:"assistant,omitempty"`
	User       *userV3         `json:"user,omitempty"`
	ToolResult *toolResultV3   `json:"tool_result,omitempty"`
	Terminal   *TerminalRecord `json:"terminal,omitempty"`
}

type metaV3 struct {
	Version     int           `json:"version"`
	RunID       string        `json:"run_id"`
	Created     time.Time     `json:"created"`
	Fingerprint FingerprintV3 `json:"fingerprint"`
	Prompt      string        `json:"prompt"`
	Interactive bool          `json:"interactive,omitempty"`
}

type assistantV3 struct {
	Iteration         int64          `json:"iteration"`
	Message           NeutralMessage `json:"message"`
	StopReason        string         `json:"stop_reason,omitempty"`
	InTokens          int64          `json:"in_tokens"`
	OutTokens         int64          `json:"out_tokens"`
	CacheReadTokens   int64          `json:"cache_read_tokens,omitempty"`
	CacheCreateTokens int64          `json:"cache_create_tokens,omitempty"`
}

type userV3 struct {
	Message NeutralMessage `json:"message"`
}

type toolResultV3 struct {
	ToolUseID string          `json:"tool_use_id"`
	Result    ToolResultBlock `json:"result"`
	Remote    bool            `json:"remote,omitempty"`
}

// check reads a version 3 journal written elsewhere (by fisk-ai for TypeScript) as the Go
// implementation reads one, but stricter: every line into the typed structs with unknown
// fields refused, then written back by encoding/json, which must give the same bytes; then
// the whole journal through the Fold port, whose result it prints.
func check(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	// Complete lines only: a torn final write is no record (readRecords drops it too).
	lines := bytes.Split(data[:bytes.LastIndexByte(data, '\n')], []byte{'\n'})
	for i, line := range lines {
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		var rec recordV3
		err := dec.Decode(&rec)
		if err != nil {
			return fmt.Errorf("line %d: %w", i+1, err)
		}
		if rec.Meta != nil && rec.Meta.Version != 3 {
			return fmt.Errorf("line %d: record version %d, not 3", i+1, rec.Meta.Version)
		}
		again, err := json.Marshal(rec)
		if err != nil {
			return fmt.Errorf("line %d: %w", i+1, err)
		}
		if !bytes.Equal(again, line) {
			return fmt.Errorf("line %d is not what encoding/json writes:\n  read:  %s\n  Go's:  %s", i+1, line, again)
		}
	}
	recs, torn, err := readRecords(data)
	if err != nil {
		return err
	}
	state, err := fold(recs)
	if err != nil {
		return err
	}
	state.Records, state.TornTail = len(recs), torn
	out, err := json.MarshalIndent(state, "", "  ")
	if err != nil {
		return err
	}
	fmt.Printf("%s\n%d lines read as the Go implementation's version 3 records and written back byte for byte\n", out, len(lines))
	return nil
}
