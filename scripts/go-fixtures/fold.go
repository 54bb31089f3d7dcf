package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// Block is the normalized form both implementations can compute: the block's type and
// whichever of these it has. A tool_result's text is its content.
type Block struct {
	Type      string `json:"type"`
	ID        string `json:"id,omitempty"`
	ToolUseID string `json:"tool_use_id,omitempty"`
	Name      string `json:"name,omitempty"`
	Text      string `json:"text,omitempty"`
	Thinking  string `json:"thinking,omitempty"`
	IsError   bool   `json:"is_error,omitempty"`
}

type NormMessage struct {
	Role    string  `json:"role"`
	Content []Block `json:"content"`
}

type Counters struct {
	LlmCalls          int64 `json:"llm_calls"`
	ToolCalls         int64 `json:"tool_calls"`
	RemoteToolCalls   int64 `json:"remote_tool_calls"`
	InTokens          int64 `json:"in_tokens"`
	OutTokens         int64 `json:"out_tokens"`
	CacheReadTokens   int64 `json:"cache_read_tokens"`
	CacheCreateTokens int64 `json:"cache_create_tokens"`
}

type Pending struct {
	Iteration  int64    `json:"iteration"`
	StopReason string   `json:"stop_reason"`
	ToolUseIDs []string `json:"tool_use_ids"`
	Answered   []string `json:"answered"`
	Unanswered []string `json:"unanswered"`
}

// Expected is what Fold computes, in the normalized form.
type Expected struct {
	Scenario       string          `json:"scenario"`
	Version        int             `json:"version"`
	RunID          string          `json:"run_id"`
	Interactive    bool            `json:"interactive"`
	Records        int             `json:"records"`
	TornTail       bool            `json:"torn_tail"`
	Messages       []NormMessage   `json:"messages"`
	Counters       Counters        `json:"counters"`
	NextIteration  int64           `json:"next_iteration"`
	LastStopReason string          `json:"last_stop_reason"`
	Terminal       *TerminalRecord `json:"terminal"`
	Pending        *Pending        `json:"pending"`
	// FingerprintInputs is what the journal's hashes were computed from.
	FingerprintInputs FingerprintInputs `json:"fingerprint_inputs"`
}

// readRecords is the file store's readRecords: a line that does not decode is corrupt,
// unless it is the last one, the torn tail of a write cut short, which is dropped.
func readRecords(data []byte) ([]map[string]json.RawMessage, bool, error) {
	lines := bytes.Split(data, []byte{'\n'})
	if len(lines) > 0 && len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	var out []map[string]json.RawMessage
	for i, line := range lines {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var rec map[string]json.RawMessage
		err := json.Unmarshal(line, &rec)
		if err != nil {
			if i == len(lines)-1 {
				return out, true, nil
			}
			return nil, false, fmt.Errorf("corrupt line %d: %w", i+1, err)
		}
		out = append(out, rec)
	}
	return out, false, nil
}

type metaIn struct {
	Version     int    `json:"version"`
	RunID       string `json:"run_id"`
	Interactive bool   `json:"interactive"`
}

type assistantIn struct {
	Iteration         int64           `json:"iteration"`
	Message           json.RawMessage `json:"message"`
	StopReason        string          `json:"stop_reason"`
	InTokens          int64           `json:"in_tokens"`
	OutTokens         int64           `json:"out_tokens"`
	CacheReadTokens   int64           `json:"cache_read_tokens"`
	CacheCreateTokens int64           `json:"cache_create_tokens"`
}

type toolResultIn struct {
	ToolUseID string          `json:"tool_use_id"`
	Result    json.RawMessage `json:"result"`
	Remote    bool            `json:"remote"`
}

// fold is runstate.Fold (state.go), the same in versions 2 and 3, over normalized messages.
func fold(recs []map[string]json.RawMessage) (*Expected, error) {
	if len(recs) == 0 {
		return nil, errors.New("no records")
	}
	var meta metaIn
	err := json.Unmarshal(recs[0]["meta"], &meta)
	if err != nil {
		return nil, err
	}
	v := meta.Version
	rs := &Expected{Version: v, RunID: meta.RunID, Interactive: meta.Interactive,
		Messages: []NormMessage{{Role: "user", Content: []Block{{Type: "text", Text: promptOf(recs[0])}}}}}

	var (
		cur        *assistantIn
		curMsg     NormMessage
		curResults []Block
		curAnswer  map[string]bool
		answered   []string
		lastIter   int64
		lastStop   string
		sawAsst    bool
	)
	commit := func() {
		rs.Messages = append(rs.Messages, curMsg)
		if len(curResults) > 0 {
			rs.Messages = append(rs.Messages, NormMessage{Role: "user", Content: curResults})
		}
	}
	for _, r := range recs[1:] {
		var protocol string
		_ = json.Unmarshal(r["protocol"], &protocol)
		switch protocol {
		case namespace + ".assistant":
			var a assistantIn
			if err := json.Unmarshal(r["assistant"], &a); err != nil {
				return nil, err
			}
			if cur != nil {
				commit()
			}
			cur = &a
			curMsg, err = normMessage(v, a.Message)
			if err != nil {
				return nil, err
			}
			curResults, curAnswer, answered = nil, map[string]bool{}, nil
			lastIter, lastStop, sawAsst = a.Iteration, a.StopReason, true
			rs.Counters.LlmCalls++
			rs.Counters.InTokens += a.InTokens
			rs.Counters.OutTokens += a.OutTokens
			rs.Counters.CacheReadTokens += a.CacheReadTokens
			rs.Counters.CacheCreateTokens += a.CacheCreateTokens
		case namespace + ".user":
			var u struct {
				Message json.RawMessage `json:"message"`
			}
			if err := json.Unmarshal(r["user"], &u); err != nil {
				return nil, err
			}
			if cur != nil {
				commit()
				cur, curResults, curAnswer = nil, nil, nil
			}
			m, err := normMessage(v, u.Message)
			if err != nil {
				return nil, err
			}
			n := len(rs.Messages)
			if n > 0 && rs.Messages[n-1].Role == "user" {
				rs.Messages[n-1].Content = append(rs.Messages[n-1].Content, m.Content...)
			} else {
				rs.Messages = append(rs.Messages, m)
			}
		case namespace + ".tool_result":
			var t toolResultIn
			if err := json.Unmarshal(r["tool_result"], &t); err != nil {
				return nil, err
			}
			if cur == nil {
				return nil, errors.New("tool_result before any assistant")
			}
			b, err := normResult(v, t.Result)
			if err != nil {
				return nil, err
			}
			curResults = append(curResults, b)
			curAnswer[t.ToolUseID] = true
			answered = append(answered, t.ToolUseID)
			rs.Counters.ToolCalls++
			if t.Remote {
				rs.Counters.RemoteToolCalls++
			}
		case namespace + ".terminal":
			var t TerminalRecord
			if err := json.Unmarshal(r["terminal"], &t); err != nil {
				return nil, err
			}
			rs.Terminal = &t
		default:
			return nil, fmt.Errorf("unknown record protocol %q", protocol)
		}
	}

	if cur != nil {
		var ids, unanswered []string
		for _, b := range curMsg.Content {
			if b.Type == "tool_use" {
				ids = append(ids, b.ID)
				if !curAnswer[b.ID] {
					unanswered = append(unanswered, b.ID)
				}
			}
		}
		if len(unanswered) == 0 {
			commit()
		} else {
			rs.Pending = &Pending{Iteration: cur.Iteration, StopReason: cur.StopReason, ToolUseIDs: ids, Answered: answered, Unanswered: unanswered}
		}
	}
	if sawAsst {
		rs.NextIteration = lastIter + 1
		rs.LastStopReason = lastStop
	}
	return rs, nil
}

func promptOf(rec map[string]json.RawMessage) string {
	var m struct {
		Prompt string `json:"prompt"`
	}
	_ = json.Unmarshal(rec["meta"], &m)
	return m.Prompt
}

// normMessage reads anthropic.MessageParam (v1, v2) or llm.Message (v3).
func normMessage(version int, raw json.RawMessage) (NormMessage, error) {
	var m struct {
		Role    string            `json:"role"`
		Content []json.RawMessage `json:"content"`
	}
	err := json.Unmarshal(raw, &m)
	if err != nil {
		return NormMessage{}, err
	}
	out := NormMessage{Role: m.Role, Content: []Block{}}
	for _, c := range m.Content {
		var b Block
		if version == 3 {
			b, err = normNeutral(c)
		} else {
			b, err = normSDK(c)
		}
		if err != nil {
			return NormMessage{}, err
		}
		out.Content = append(out.Content, b)
	}
	return out, nil
}

// normSDK reads one Anthropic wire block.
func normSDK(raw json.RawMessage) (Block, error) {
	var w struct {
		Type      string          `json:"type"`
		ID        string          `json:"id"`
		ToolUseID string          `json:"tool_use_id"`
		Name      string          `json:"name"`
		Text      string          `json:"text"`
		Thinking  string          `json:"thinking"`
		IsError   bool            `json:"is_error"`
		Content   json.RawMessage `json:"content"`
	}
	err := json.Unmarshal(raw, &w)
	if err != nil {
		return Block{}, err
	}
	b := Block{Type: w.Type, ID: w.ID, ToolUseID: w.ToolUseID, Name: w.Name, Text: w.Text, Thinking: w.Thinking, IsError: w.IsError}
	if w.Type == "tool_result" {
		var parts []struct {
			Text string `json:"text"`
		}
		err = json.Unmarshal(w.Content, &parts)
		if err != nil {
			return Block{}, err
		}
		for _, p := range parts {
			b.Text += p.Text
		}
	}
	return b, nil
}

// normNeutral reads one llm.ContentBlock; a provider block is its raw SDK block.
func normNeutral(raw json.RawMessage) (Block, error) {
	var c ContentBlock
	err := json.Unmarshal(raw, &c)
	if err != nil {
		return Block{}, err
	}
	switch {
	case c.Text != nil:
		return Block{Type: "text", Text: c.Text.Text}, nil
	case c.Thinking != nil:
		return Block{Type: "thinking", Thinking: c.Thinking.Text}, nil
	case c.ToolUse != nil:
		return Block{Type: "tool_use", ID: c.ToolUse.ID, Name: c.ToolUse.Name}, nil
	case c.ToolResult != nil:
		return Block{Type: "tool_result", ToolUseID: c.ToolResult.ToolUseID, Text: c.ToolResult.Content, IsError: c.ToolResult.IsError}, nil
	case c.Provider != nil:
		return normSDK(c.Provider.Raw)
	}
	return Block{}, errors.New("content block has no variant set")
}

// normResult reads a tool_result record's result: an SDK block (v1, v2) or llm.ToolResultBlock (v3).
func normResult(version int, raw json.RawMessage) (Block, error) {
	if version != 3 {
		return normSDK(raw)
	}
	var r ToolResultBlock
	err := json.Unmarshal(raw, &r)
	if err != nil {
		return Block{}, err
	}
	return Block{Type: "tool_result", ToolUseID: r.ToolUseID, Text: r.Content, IsError: r.IsError}, nil
}
