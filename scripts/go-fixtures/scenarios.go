package main

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"math/big"
	"time"
)

// blk is one content block of a scenario, before it is shaped for a version.
type blk struct {
	kind      string // text, thinking, tool_use, server_tool_use, tool_search_tool_result
	id        string
	name      string
	text      string
	signature string
	input     string
	toolUseID string
	refs      []string
}

// event is one thing that happens in a run, in journal order.
type event struct {
	assistant *assistantEvent
	result    *resultEvent
	user      string
	terminal  *TerminalRecord
	// torn writes the event that follows as a partial last line, as a kill -9 mid-write leaves it.
	torn bool
}

type assistantEvent struct {
	iteration                 int64
	stop                      string
	in, out, cacheRead, cache int64
	blocks                    []blk
}

type resultEvent struct {
	id      string
	content string
	isError bool
	remote  bool
}

type scenario struct {
	name        string
	prompt      string
	interactive bool
	thinking    bool
	created     time.Time
	events      []event
}

// signature is a realistic, deterministic stand-in for an Anthropic thinking signature:
// an opaque base64 string of a few hundred bytes.
func signature(seed string) string {
	var out []byte
	sum := sha256.Sum256([]byte(seed))
	for len(out) < 240 {
		out = append(out, sum[:]...)
		sum = sha256.Sum256(sum[:])
	}
	return base64.StdEncoding.EncodeToString(out[:240])
}

// toolID mimics the API's ids: a prefix ("toolu_01", "srvtoolu_01") and 22 base58-ish characters.
func toolID(prefix, seed string) string {
	const alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz0123456789"
	sum := sha256.Sum256([]byte(seed))
	b := make([]byte, 22)
	for i := range b {
		b[i] = alphabet[int(sum[i])%len(alphabet)]
	}
	return prefix + string(b)
}

func text(s string) blk { return blk{kind: "text", text: s} }
func think(s string) blk {
	return blk{kind: "thinking", text: s, signature: signature(s)}
}
func use(id, name, input string) blk { return blk{kind: "tool_use", id: id, name: name, input: input} }
func asst(iter int64, stop string, in, out int64, blocks ...blk) event {
	return event{assistant: &assistantEvent{iteration: iter, stop: stop, in: in, out: out, blocks: blocks}}
}
func result(id, content string, isError bool) event {
	return event{result: &resultEvent{id: id, content: content, isError: isError}}
}
func terminal(reason, msg string) event {
	return event{terminal: &TerminalRecord{Reason: reason, Message: msg}}
}

func when(day, hour, min int, nanos int, offsetHours int) time.Time {
	return time.Date(2026, time.July, day, hour, min, 7, nanos, time.FixedZone("", offsetHours*3600))
}

func scenarios() []scenario {
	var out []scenario

	// Thinking with signatures, across a tool call: the signatures must survive verbatim.
	{
		a := toolID("toolu_01", "thinking-a")
		cached := asst(1, "end_turn", 412, 96,
			think("The file lists three hosts; web2 shows a load of 7.9, well above the others."),
			text("web2 is the overloaded host: its load average is 7.9 against <1.0 on web1 and web3 & db1."))
		cached.assistant.cacheRead = 1830
		out = append(out, scenario{
			name: "thinking", thinking: true,
			prompt:  "Which host in hosts.txt is overloaded? Answer with <host> & reason.",
			created: when(14, 9, 30, 123456789, 2),
			events: []event{
				asst(0, "tool_use", 1830, 210,
					think("I should read hosts.txt before answering; the user wants the overloaded host."),
					text("Let me read the file."),
					use(a, "read_file", `{"path":"hosts.txt"}`)),
				result(a, "web1 load=0.42\nweb2 load=7.90\nweb3 load=0.88\ndb1 load=0.31", false),
				cached,
				terminal("completed", ""),
			},
		})
	}

	// A parallel batch of three tools, one of which fails.
	{
		a, b, c := toolID("toolu_01", "par-a"), toolID("toolu_01", "par-b"), toolID("toolu_01", "par-c")
		out = append(out, scenario{
			name:    "parallel-batch",
			prompt:  "Check disk usage on web1, web2 and web3 and summarise.",
			created: when(14, 10, 2, 987000001, -5),
			events: []event{
				asst(0, "tool_use", 920, 188,
					text("I'll check all three hosts at once."),
					use(a, "disk_usage", `{"host":"web1"}`),
					use(b, "disk_usage", `{"host":"web2"}`),
					use(c, "disk_usage", `{"host":"web3"}`)),
				result(b, `{"host":"web2","used_pct":91}`, false),
				result(a, `{"host":"web1","used_pct":40}`, false),
				result(c, "ssh: connect to host web3 port 22: Connection refused", true),
				asst(1, "end_turn", 1204, 75,
					text("web2 is at 91% disk use, web1 at 40%; web3 could not be reached (connection refused).")),
				terminal("completed", ""),
			},
		})
	}

	// A crash mid-batch: one of three results journaled, the second cut mid-write.
	{
		a, b, c := toolID("toolu_01", "torn-a"), toolID("toolu_01", "torn-b"), toolID("toolu_01", "torn-c")
		out = append(out, scenario{
			name:    "torn-batch",
			prompt:  "Restart the three workers one by one and report their pids.",
			created: when(15, 23, 59, 500, 0),
			events: []event{
				asst(0, "tool_use", 640, 142,
					use(a, "restart_worker", `{"name":"worker-1"}`),
					use(b, "restart_worker", `{"name":"worker-2"}`),
					use(c, "restart_worker", `{"name":"worker-3"}`)),
				result(a, "worker-1 restarted, pid 48211", false),
				{torn: true},
				result(b, "worker-2 restarted, pid 48230", false),
			},
		})
	}

	// Suspended at a boundary, then resumed in a later process to completion.
	{
		a, b := toolID("toolu_01", "susp-a"), toolID("toolu_01", "susp-b")
		resumed := asst(1, "tool_use", 310, 64, use(b, "list_alerts", `{"severity":"critical"}`))
		resumed.assistant.cache = 1120
		out = append(out, scenario{
			name:    "suspended-resumed",
			prompt:  "List the open critical alerts and who is on call.",
			created: when(16, 8, 15, 100000000, 10),
			events: []event{
				asst(0, "tool_use", 1120, 58, use(a, "on_call", `{}`)),
				result(a, "alice (until 18:00 UTC)", false),
				terminal("suspended", ""),
				resumed,
				result(b, `[{"id":"A-17","title":"disk > 90% on web2"}]`, false),
				asst(2, "end_turn", 402, 51, text("One critical alert, A-17 (disk > 90% on web2); alice is on call.")),
				terminal("completed", ""),
			},
		})
	}

	// An interactive (--chat) run: two follow-ups typed at input boundaries.
	{
		a := toolID("toolu_01", "chat-a")
		out = append(out, scenario{
			name: "interactive", interactive: true,
			prompt:  "What time zone is the build server in?",
			created: when(17, 14, 0, 0, 1),
			events: []event{
				asst(0, "tool_use", 520, 40, use(a, "run_command", `{"command":"timedatectl show -p Timezone"}`)),
				result(a, "Timezone=Europe/London", false),
				asst(1, "end_turn", 580, 22, text("The build server is in Europe/London.")),
				{user: "And is NTP synchronised?"},
				asst(2, "end_turn", 610, 30, text("I would need to run timedatectl again; shall I?")),
				{user: "yes, please"},
				asst(3, "end_turn", 640, 12, text("It reports NTP synchronized: yes.")),
				terminal("suspended", ""),
			},
		})
	}

	// Tool search: with ten or more tools deferred, the API searches server-side and the
	// same turn then calls the tool it found.
	{
		s, a := toolID("srvtoolu_01", "search-s"), toolID("toolu_01", "search-a")
		out = append(out, scenario{
			name:    "tool-search",
			prompt:  "Rotate the TLS certificate on the edge proxy.",
			created: when(18, 6, 45, 999999999, -7),
			events: []event{
				asst(0, "tool_use", 2410, 160,
					text("I need a tool for certificates."),
					blk{kind: "server_tool_use", id: s, name: "tool_search_tool_bm25", input: `{"query":"rotate tls certificate"}`},
					blk{kind: "tool_search_tool_result", toolUseID: s, refs: []string{"rotate_certificate", "list_certificates"}},
					use(a, "rotate_certificate", `{"target":"edge-proxy"}`)),
				result(a, "certificate rotated; new expiry 2027-07-18", false),
				asst(1, "end_turn", 2702, 35, text("Done: the edge proxy has a new certificate, valid until 2027-07-18.")),
				terminal("completed", ""),
			},
		})
	}

	// A paused turn: the API stops a long server-side turn with pause_turn, the loop sends
	// it back, and the continuation is a second assistant record in a row.
	{
		s, a := toolID("srvtoolu_01", "pause-s"), toolID("toolu_01", "pause-a")
		out = append(out, scenario{
			name:    "paused-turn",
			prompt:  "Find the tool that drains a node and drain node-7.",
			created: when(19, 12, 0, 10, 5),
			events: []event{
				asst(0, "pause_turn", 2300, 90,
					text("Searching for a drain tool."),
					blk{kind: "server_tool_use", id: s, name: "tool_search_tool_bm25", input: `{"query":"drain a node"}`}),
				asst(1, "tool_use", 2395, 70,
					blk{kind: "tool_search_tool_result", toolUseID: s, refs: []string{"drain_node"}},
					use(a, "drain_node", `{"node":"node-7"}`)),
				result(a, "node-7 cordoned and drained (14 pods evicted)", false),
				asst(2, "end_turn", 2480, 20, text("node-7 is drained.")),
				terminal("completed", ""),
			},
		})
	}

	return out
}

// ksuid is the run id the Go implementation mints (a2a.NewID: a KSUID): four bytes of
// seconds since its 2014-05-13 epoch and sixteen of payload, in 27 base62 characters.
// The payload is derived from the scenario so the output is the same on every run.
func ksuid(s scenario) string {
	const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	raw := make([]byte, 20)
	binary.BigEndian.PutUint32(raw, uint32(s.created.Unix()-1400000000))
	sum := sha256.Sum256([]byte(s.name))
	copy(raw[4:], sum[:16])
	n := new(big.Int).SetBytes(raw)
	base := big.NewInt(62)
	out := make([]byte, 27)
	for i := range out {
		out[i] = '0'
	}
	mod := new(big.Int)
	for i := 26; n.Sign() > 0; i-- {
		n.DivMod(n, base, mod)
		out[i] = alphabet[mod.Int64()]
	}
	return string(out)
}
