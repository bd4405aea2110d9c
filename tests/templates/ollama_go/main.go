// Renders seed 003's Ollama template with Go's text/template, the way Ollama's template.Execute does
// (collate: system messages joined with a blank line, consecutive same-role messages merged).
// JSON is given pre-serialised by the caller (Function, Arguments), so that only the template is compared.
//
// Usage: go run main.go TEMPLATE_FILE < cases.json > outputs.json
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"text/template"
)

type ToolCallFunction struct {
	Name      string
	Arguments string
}

type ToolCall struct {
	Function ToolCallFunction
}

type Message struct {
	Role      string     `json:"role"`
	Content   string     `json:"content"`
	ToolCalls []ToolCall `json:"-"`
	RawCalls  []struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"tool_calls"`
}

type Tool struct {
	Function string `json:"function"`
}

type Case struct {
	Messages []Message `json:"messages"`
	Tools    []Tool    `json:"tools"`
}

func collate(msgs []Message) (string, []*Message) {
	var system []string
	var collated []*Message
	for i := range msgs {
		if msgs[i].Role == "system" {
			system = append(system, msgs[i].Content)
		}
		if len(collated) > 0 && collated[len(collated)-1].Role == msgs[i].Role && msgs[i].Role != "tool" {
			collated[len(collated)-1].Content += "\n\n" + msgs[i].Content
		} else {
			collated = append(collated, &msgs[i])
		}
	}
	return strings.Join(system, "\n\n"), collated
}

func main() {
	src, err := os.ReadFile(os.Args[1])
	if err != nil {
		panic(err)
	}
	tmpl := template.Must(template.New("t").Parse(string(src)))
	var cases []Case
	if err := json.NewDecoder(os.Stdin).Decode(&cases); err != nil {
		panic(err)
	}
	var out []string
	for _, c := range cases {
		for i := range c.Messages {
			for _, rc := range c.Messages[i].RawCalls {
				c.Messages[i].ToolCalls = append(c.Messages[i].ToolCalls, ToolCall{ToolCallFunction{rc.Name, rc.Arguments}})
			}
		}
		system, messages := collate(c.Messages)
		var b bytes.Buffer
		err := tmpl.Execute(&b, map[string]any{"System": system, "Messages": messages, "Tools": c.Tools})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		out = append(out, b.String())
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		panic(err)
	}
}
