// Command go-fixtures writes the Go-implementation journals under test/fixtures/go:
// for each record version and scenario a state directory (runs/<run id>.json, as the
// Go file store lays one out) and expected.json, what the Go implementation's Fold
// (internal/runstate/state.go, ported in fold.go) computes from that journal.
//
// Run from the repository root: (cd scripts/go-fixtures && go run . ../../test/fixtures/go)
// With -check JOURNAL it reads a version 3 journal written by fisk-ai for TypeScript as the
// Go implementation's structs and says whether encoding/json writes the same bytes (check.go).
package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

func hashHex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func main() {
	if len(os.Args) == 3 && os.Args[1] == "-check" {
		err := check(os.Args[2])
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", os.Args[2], err)
			os.Exit(1)
		}
		return
	}
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: go-fixtures <output directory> | go-fixtures -check <version 3 journal>")
		os.Exit(2)
	}
	root := os.Args[1]
	for _, version := range []int{1, 2, 3} {
		for _, s := range scenarios() {
			// Version 1 has no User record and no interactive flag (both came in version 2).
			if version == 1 && s.interactive {
				continue
			}
			err := write(root, version, s)
			if err != nil {
				fmt.Fprintf(os.Stderr, "v%d %s: %v\n", version, s.name, err)
				os.Exit(1)
			}
		}
	}
}

func write(root string, version int, s scenario) error {
	dir := filepath.Join(root, fmt.Sprintf("v%d", version), s.name)
	runs := filepath.Join(dir, "runs")
	err := os.RemoveAll(dir)
	if err != nil {
		return err
	}
	err = os.MkdirAll(runs, 0o700)
	if err != nil {
		return err
	}

	runID := ksuid(s)
	journal, err := journalBytes(version, runID, s)
	if err != nil {
		return err
	}
	path := filepath.Join(runs, runID+".json")
	err = os.WriteFile(path, journal, 0o600)
	if err != nil {
		return err
	}

	// The expectation is folded from the bytes on disk, read the way the Go file store reads them.
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	recs, torn, err := readRecords(data)
	if err != nil {
		return err
	}
	expected, err := fold(recs)
	if err != nil {
		return err
	}
	fpIn, err := fingerprintOf(version, s)
	if err != nil {
		return err
	}
	expected.Scenario = s.name
	expected.FingerprintInputs = fpIn.inputs
	expected.TornTail = torn
	expected.Records = len(recs)

	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	err = enc.Encode(expected)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "expected.json"), buf.Bytes(), 0o644)
}

// journalBytes marshals each record with encoding/json, one per line, as fileJournal.Append does.
func journalBytes(version int, runID string, s scenario) ([]byte, error) {
	var out []byte
	var seq uint64 = 1
	fpIn, err := fingerprintOf(version, s)
	if err != nil {
		return nil, err
	}
	mode := "off"
	if s.thinking {
		mode = "summarized"
	}
	var fp Fingerprint = FingerprintV2{Model: "claude-sonnet-4-5", SystemHash: fpIn.systemHash, ToolsHash: fpIn.toolsHash, ThinkingMode: mode, MaxTokens: 8192, MaxIterations: 25}
	if version == 3 {
		fp = FingerprintV3{Provider: "anthropic", Model: "claude-sonnet-4-5", SystemHash: fpIn.systemHash, ToolsHash: fpIn.toolsHash, ThinkingMode: mode, MaxTokens: 8192, MaxIterations: 25}
	}
	recs := []Record{{Seq: seq, Protocol: namespace + ".meta", Meta: &MetaRecord{
		Version: version, RunID: runID, Created: s.created, Fingerprint: fp, Prompt: s.prompt, Interactive: s.interactive,
	}}}

	tornAt := -1
	for _, e := range s.events {
		if e.torn {
			tornAt = len(recs)
			continue
		}
		seq++
		r := Record{Seq: seq}
		switch {
		case e.assistant != nil:
			a := e.assistant
			r.Protocol = namespace + ".assistant"
			r.Assistant = &AssistantRecord{Iteration: a.iteration, Message: message(version, "assistant", a.blocks), StopReason: a.stop,
				InTokens: a.in, OutTokens: a.out, CacheReadTokens: a.cacheRead, CacheCreateTokens: a.cache}
		case e.result != nil:
			r.Protocol = namespace + ".tool_result"
			r.ToolResult = &ToolResultRecord{ToolUseID: e.result.id, Result: toolResult(version, e.result), Remote: e.result.remote}
		case e.user != "":
			r.Protocol = namespace + ".user"
			r.User = &UserRecord{Message: message(version, "user", []blk{text(e.user)})}
		case e.terminal != nil:
			r.Protocol = namespace + ".terminal"
			r.Terminal = e.terminal
		}
		recs = append(recs, r)
	}

	for i, r := range recs {
		line, err := json.Marshal(r)
		if err != nil {
			return nil, err
		}
		if i == tornAt {
			// A kill -9 mid-write: the first part of the line, no newline.
			out = append(out, line[:len(line)*2/3]...)
			break
		}
		out = append(out, line...)
		out = append(out, '\n')
	}
	return out, nil
}

func message(version int, role string, blocks []blk) Message {
	if version == 3 {
		m := NeutralMessage{Role: role}
		for _, b := range blocks {
			m.Content = append(m.Content, neutralBlock(b))
		}
		return m
	}
	m := MessageParam{Role: role}
	for _, b := range blocks {
		m.Content = append(m.Content, sdkBlock(b))
	}
	return m
}

// sdkBlock is the block as resp.ToParam() builds it (anthropic-sdk-go v1.57.0).
func sdkBlock(b blk) interface{} {
	switch b.kind {
	case "text":
		return TextBlockParam{Text: b.text, Type: "text"}
	case "thinking":
		return ThinkingBlockParam{Signature: b.signature, Thinking: b.text, Type: "thinking"}
	case "tool_use":
		return ToolUseBlockParam{ID: b.id, Input: json.RawMessage(b.input), Name: b.name, Type: "tool_use"}
	case "server_tool_use":
		return ServerToolUseBlockParam{ID: b.id, Input: json.RawMessage(b.input), Name: b.name, Type: "server_tool_use"}
	case "tool_search_tool_result":
		res := ToolSearchToolSearchResultBlockParam{Type: "tool_search_tool_search_result"}
		for _, name := range b.refs {
			res.ToolReferences = append(res.ToolReferences, ToolReferenceBlockParam{ToolName: name, Type: "tool_reference"})
		}
		return ToolSearchToolResultBlockParam{Content: res, ToolUseID: b.toolUseID, Type: "tool_search_tool_result"}
	}
	panic("unknown block kind " + b.kind)
}

// neutralBlock is the block as the v3 codec (internal/llm/anthropic/codec.go) makes it:
// a block it does not model becomes a provider block holding the SDK's JSON of it.
func neutralBlock(b blk) ContentBlock {
	switch b.kind {
	case "text":
		return ContentBlock{Text: &TextBlock{Text: b.text}}
	case "thinking":
		return ContentBlock{Thinking: &ThinkingBlock{Text: b.text, Signature: []byte(b.signature)}}
	case "tool_use":
		return ContentBlock{ToolUse: &ToolUseBlock{ID: b.id, Name: b.name, Input: json.RawMessage(b.input)}}
	}
	raw, err := json.Marshal(sdkBlock(b))
	if err != nil {
		panic(err)
	}
	return ContentBlock{Provider: &ProviderBlock{Kind: b.kind, Raw: raw}}
}

// toolResult is anthropic.NewToolResultBlock (v1, v2) or llm.ToolResultBlock (v3).
func toolResult(version int, r *resultEvent) interface{} {
	if version == 3 {
		return ToolResultBlock{ToolUseID: r.id, Content: r.content, IsError: r.isError}
	}
	return ToolResultBlockParam{ToolUseID: r.id, IsError: r.isError, Content: []TextBlockParam{{Text: r.content, Type: "text"}}, Type: "tool_result"}
}
