package main

import (
	"encoding/json"
	"sort"
)

// ToolDef is llm.ToolDef (version 3). It has no json tags, so encoding/json writes its
// Go field names and InputSchema's keys sorted: the bytes computeFingerprint hashes.
type ToolDef struct {
	Name         string
	Description  string
	InputSchema  map[string]any
	DeferLoading bool
}

// FingerprintInputs records what a fixture's hashes were computed from. ToolsJSON is the
// exact byte string whose sha256 is tools_hash, or empty where the hash is a stand-in.
type FingerprintInputs struct {
	System      []string `json:"system"`
	SystemJSON  string   `json:"system_json"`
	ToolsJSON   string   `json:"tools_json,omitempty"`
	ToolsExact  bool     `json:"tools_hash_exact"`
	ToolsNames  []string `json:"tool_names"`
	SystemExact bool     `json:"system_hash_exact"`
}

type fingerprintIn struct {
	systemHash string
	toolsHash  string
	inputs     FingerprintInputs
}

// toolSearchThreshold is the Go implementation's: at ten or more tools they are deferred.
const toolSearchThreshold = 10

// extraTools pad a run that searches its tools to past the threshold.
var extraTools = []string{"list_certificates", "check_dns", "tail_log", "list_pods", "scale_deployment", "get_metrics", "open_ticket", "page_oncall", "flush_cache", "describe_node", "cordon_node"}

func systemOf(s scenario) []string {
	return []string{
		"You are an operations agent. Use the tools you are given; never guess at a host's state.",
		"Answer briefly. Quote figures exactly as the tools report them.",
	}
}

// toolDefsOf: the tools the scenario's model calls, each with a schema of its input's
// keys, padded past the threshold (and deferred) where the run searches its tools.
func toolDefsOf(s scenario) []ToolDef {
	var defs []ToolDef
	seen := map[string]bool{}
	search := false
	for _, e := range s.events {
		if e.assistant == nil {
			continue
		}
		for _, b := range e.assistant.blocks {
			if b.kind == "server_tool_use" {
				search = true
			}
			if b.kind != "tool_use" || seen[b.name] {
				continue
			}
			seen[b.name] = true
			var input map[string]any
			_ = json.Unmarshal([]byte(b.input), &input)
			props := map[string]any{}
			required := []any{}
			keys := make([]string, 0, len(input))
			for k := range input {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				props[k] = map[string]any{"type": "string"}
				required = append(required, k)
			}
			defs = append(defs, ToolDef{Name: b.name, Description: "Runs " + b.name + " on the fleet.",
				InputSchema: map[string]any{"type": "object", "properties": props, "required": required}})
		}
	}
	if search {
		for _, name := range extraTools {
			if len(defs) >= toolSearchThreshold+2 {
				break
			}
			if !seen[name] {
				defs = append(defs, ToolDef{Name: name, Description: "Runs " + name + " on the fleet.",
					InputSchema: map[string]any{"type": "object", "properties": map[string]any{}, "required": []any{}}})
			}
		}
		for i := range defs {
			defs[i].DeferLoading = true
		}
	}
	return defs
}

// fingerprintOf hashes as computeFingerprint does. Version 3 hashes json.Marshal of the
// system []string and of []llm.ToolDef, both exact here. Versions 1 and 2 hash
// []anthropic.TextBlockParam (exact: {"text","type"} per part, no cache_control yet) and
// []anthropic.ToolUnionParam, whose SDK encoding is not reproduced: that hash is a
// stand-in of the right shape, sha256 of the tool names.
func fingerprintOf(version int, s scenario) (fingerprintIn, error) {
	system := systemOf(s)
	defs := toolDefsOf(s)
	in := FingerprintInputs{System: system, SystemExact: true}
	for _, d := range defs {
		in.ToolsNames = append(in.ToolsNames, d.Name)
	}

	var sys []byte
	var err error
	if version == 3 {
		sys, err = json.Marshal(system)
	} else {
		parts := make([]TextBlockParam, len(system))
		for i, text := range system {
			parts[i] = TextBlockParam{Text: text, Type: "text"}
		}
		sys, err = json.Marshal(parts)
	}
	if err != nil {
		return fingerprintIn{}, err
	}
	in.SystemJSON = string(sys)

	var tools []byte
	if version == 3 {
		tools, err = json.Marshal(defs)
		if err != nil {
			return fingerprintIn{}, err
		}
		in.ToolsJSON = string(tools)
		in.ToolsExact = true
	} else {
		tools, err = json.Marshal(in.ToolsNames)
		if err != nil {
			return fingerprintIn{}, err
		}
	}
	return fingerprintIn{systemHash: hashHex(sys), toolsHash: hashHex(tools), inputs: in}, nil
}
