// The journal structs of the Go implementation (choria-io/fisk-ai), copied field for
// field so encoding/json writes the bytes it writes. Versions 1 and 2 journal the
// Anthropic SDK's param types (anthropic-sdk-go v1.57.0, marshalled with omitzero; the
// omitempty and pointers here give the same output); version 3 journals the
// provider-neutral llm.Message of its PR #24.
package main

import (
	"encoding/json"
	"time"
)

const namespace = "io.choria.fisk-ai.v1.session"

// runstate.Record: one payload pointer set, selected by Protocol.
type Record struct {
	Seq      uint64 `json:"seq"`
	Protocol string `json:"protocol"`

	Meta       *MetaRecord       `json:"meta,omitempty"`
	Assistant  *AssistantRecord  `json:"assistant,omitempty"`
	User       *UserRecord       `json:"user,omitempty"`
	ToolResult *ToolResultRecord `json:"tool_result,omitempty"`
	Terminal   *TerminalRecord   `json:"terminal,omitempty"`
}

type MetaRecord struct {
	Version     int         `json:"version"`
	RunID       string      `json:"run_id"`
	Created     time.Time   `json:"created"`
	Fingerprint Fingerprint `json:"fingerprint"`
	Prompt      string      `json:"prompt"`
	Interactive bool        `json:"interactive,omitempty"`
}

// FingerprintV2 has no provider (versions 1 and 2); Fingerprint is version 3's.
type Fingerprint interface{}

type FingerprintV2 struct {
	Model         string `json:"model"`
	SystemHash    string `json:"system_hash"`
	ToolsHash     string `json:"tools_hash"`
	ThinkingMode  string `json:"thinking_mode"`
	MaxTokens     int64  `json:"max_tokens"`
	MaxIterations int64  `json:"max_iterations"`
}

type FingerprintV3 struct {
	Provider      string `json:"provider"`
	Model         string `json:"model"`
	SystemHash    string `json:"system_hash"`
	ToolsHash     string `json:"tools_hash"`
	ThinkingMode  string `json:"thinking_mode"`
	MaxTokens     int64  `json:"max_tokens"`
	MaxIterations int64  `json:"max_iterations"`
}

// Message is anthropic.MessageParam (v1, v2: content before role) or llm.Message (v3).
type Message interface{}

type AssistantRecord struct {
	Iteration         int64   `json:"iteration"`
	Message           Message `json:"message"`
	StopReason        string  `json:"stop_reason,omitempty"`
	InTokens          int64   `json:"in_tokens"`
	OutTokens         int64   `json:"out_tokens"`
	CacheReadTokens   int64   `json:"cache_read_tokens,omitempty"`
	CacheCreateTokens int64   `json:"cache_create_tokens,omitempty"`
}

type UserRecord struct {
	Message Message `json:"message"`
}

// Result is anthropic.ContentBlockParamUnion holding a tool_result (v1, v2) or
// llm.ToolResultBlock (v3).
type ToolResultRecord struct {
	ToolUseID string      `json:"tool_use_id"`
	Result    interface{} `json:"result"`
	Remote    bool        `json:"remote,omitempty"`
}

type TerminalRecord struct {
	Reason  string `json:"reason"`
	Message string `json:"message,omitempty"`
}

// ---- anthropic-sdk-go v1.57.0 params (versions 1 and 2) ----

type MessageParam struct {
	Content []interface{} `json:"content,omitempty"`
	Role    string        `json:"role,omitempty"`
}

type TextBlockParam struct {
	Text string `json:"text"`
	Type string `json:"type"`
}

type ThinkingBlockParam struct {
	Signature string `json:"signature"`
	Thinking  string `json:"thinking"`
	Type      string `json:"type"`
}

type ToolUseBlockParam struct {
	ID    string          `json:"id"`
	Input json.RawMessage `json:"input,omitempty"`
	Name  string          `json:"name"`
	Type  string          `json:"type"`
}

// IsError is param.Opt[bool], set by anthropic.NewToolResultBlock even when false.
type ToolResultBlockParam struct {
	ToolUseID string           `json:"tool_use_id"`
	IsError   bool             `json:"is_error"`
	Content   []TextBlockParam `json:"content,omitempty"`
	Type      string           `json:"type"`
}

type ServerToolUseBlockParam struct {
	ID    string          `json:"id"`
	Input json.RawMessage `json:"input,omitempty"`
	Name  string          `json:"name,omitempty"`
	Type  string          `json:"type"`
}

type ToolSearchToolResultBlockParam struct {
	Content   ToolSearchToolSearchResultBlockParam `json:"content"`
	ToolUseID string                               `json:"tool_use_id"`
	Type      string                               `json:"type"`
}

type ToolSearchToolSearchResultBlockParam struct {
	ToolReferences []ToolReferenceBlockParam `json:"tool_references,omitempty"`
	Type           string                    `json:"type"`
}

type ToolReferenceBlockParam struct {
	ToolName string `json:"tool_name"`
	Type     string `json:"type"`
}

// ---- internal/llm/types.go (version 3) ----

type NeutralMessage struct {
	Role    string         `json:"role"`
	Content []ContentBlock `json:"content"`
}

type ContentBlock struct {
	Text       *TextBlock       `json:"text,omitempty"`
	Thinking   *ThinkingBlock   `json:"thinking,omitempty"`
	ToolUse    *ToolUseBlock    `json:"tool_use,omitempty"`
	ToolResult *ToolResultBlock `json:"tool_result,omitempty"`
	Provider   *ProviderBlock   `json:"provider,omitempty"`
}

type TextBlock struct {
	Text string `json:"text"`
}

type ThinkingBlock struct {
	Text      string `json:"text,omitempty"`
	Signature []byte `json:"signature,omitempty"`
}

type ToolUseBlock struct {
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

type ToolResultBlock struct {
	ToolUseID string `json:"tool_use_id"`
	Content   string `json:"content"`
	IsError   bool   `json:"is_error,omitempty"`
}

type ProviderBlock struct {
	Kind string          `json:"kind"`
	Raw  json.RawMessage `json:"raw"`
}
