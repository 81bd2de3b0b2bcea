package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/spf13/pflag"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/tools/clientcmd"
)

// The hidden commands that shells and kubectl run for completions, as
// Cobra names them: __complete WORD... CURRENT prints the words that may
// stand at CURRENT, "word\tdescription" a line (__completeNoDesc: no
// descriptions), then ":DIRECTIVE".
const (
	completeCmd       = "__complete"
	completeNoDescCmd = "__completeNoDesc"
)

const (
	// maxCompletions bounds the answers printed; maxCompleteWords the words read.
	maxCompletions   = 1000
	maxCompleteWords = 256
	// completeTimeout bounds the cluster's answers to a completion: a
	// shell waits for it.
	completeTimeout = 5 * time.Second
)

// completion is one answer.
type completion struct{ word, desc string }

// completeLine answers `__complete args...` on w and returns the exit status (0).
func completeLine(ctx context.Context, args []string, descriptions bool, w io.Writer) int {
	comps, directive := completions(ctx, args)
	var b strings.Builder
	for i, c := range comps {
		if i == maxCompletions {
			break
		}
		word := strings.Map(dropControl, c.word)
		if descriptions && c.desc != "" {
			fmt.Fprintf(&b, "%s\t%s\n", word, strings.Map(dropControl, c.desc))
			continue
		}
		fmt.Fprintln(&b, word)
	}
	fmt.Fprintf(&b, ":%d\n", directive)
	io.WriteString(w, b.String())
	return 0
}

// dropControl keeps control characters (a name from the cluster is
// untrusted) out of what a shell reads line by line.
func dropControl(r rune) rune {
	if r < 0x20 || r == 0x7f {
		return -1
	}
	return r
}

// completions are the answers for the last word of args (the words after
// the program's name, the last one being completed, possibly empty), and
// the directive.
func completions(ctx context.Context, args []string) ([]completion, int) {
	if len(args) > maxCompleteWords {
		return nil, directiveError
	}
	if len(args) == 0 {
		args = []string{""}
	}
	words, cur := joinEquals(args[:len(args)-1]), args[len(args)-1]
	// bash splits --flag=value at the "=": the word being completed is
	// "=" or what follows it.
	bashEquals := cur == "="
	if bashEquals {
		words, cur = append(words, "="), ""
	}
	if n := len(words); n >= 2 && words[n-1] == "=" && strings.HasPrefix(words[n-2], "-") {
		comps, d := flagValues(ctx, commandOf(words[:n-1]), words[:n-1], words[n-2], cur)
		if bashEquals {
			for i := range comps {
				comps[i].word = "=" + comps[i].word
			}
		}
		return comps, d
	}
	words = joinEquals(words)
	c := commandOf(words)
	if name, value, ok := strings.Cut(cur, "="); ok && strings.HasPrefix(name, "-") {
		comps, d := flagValues(ctx, c, words, name, value)
		for i := range comps {
			comps[i].word = name + "=" + comps[i].word
		}
		return comps, d
	}
	if n := len(words); n > 0 && needsValue(c, words[n-1]) {
		return flagValues(ctx, c, words, words[n-1], cur)
	}
	if strings.HasPrefix(cur, "-") {
		return flagNames(c, cur), directiveNoFileComp
	}
	return positional(ctx, c, words, cur)
}

// joinEquals puts back together what bash split at "=": "--output" "="
// "json" is "--output=json".
func joinEquals(words []string) []string {
	var out []string
	for i := 0; i < len(words); i++ {
		if words[i] == "=" && len(out) > 0 && strings.HasPrefix(out[len(out)-1], "-") && i+1 < len(words) {
			out[len(out)-1] += "=" + words[i+1]
			i++
			continue
		}
		out = append(out, words[i])
	}
	return out
}

// commandOf is the command words name ("" before one, "?" for no command
// of the plugin's), with its flags parsed from words, unknown ones and
// errors ignored: a half-typed line.
func commandOf(words []string) *command {
	cmds := commands(streams{stdout: io.Discard, stderr: io.Discard})
	all := pflag.NewFlagSet("all", pflag.ContinueOnError)
	for _, c := range cmds {
		all.AddFlagSet(c.own)
		all.AddFlagSet(c.shared)
	}
	at, _ := scan(words, all)
	var c *command
	switch {
	case at < 0:
		// before the command: the kubeconfig flags may be there already
		c = newCommand("")
		c.cluster = &clusterFlags{}
		c.cluster.bind(c.own, c.shared, 0)
		at = len(words)
	case words[at] == "help":
		return newCommand("help")
	default:
		i := slices.IndexFunc(cmds, func(c *command) bool { return c.name == words[at] })
		if i < 0 {
			return newCommand("?") // no such command: nothing to answer
		}
		c = cmds[i]
	}
	rest := words
	if at < len(words) {
		rest = slices.Concat(words[:at], words[at+1:])
	}
	fs := c.flags()
	fs.ParseErrorsAllowlist.UnknownFlags = true
	_ = fs.Parse(rest) // what could be read is set
	c.args = fs.Args()
	return c
}

// needsValue tells a flag whose value is the next word.
func needsValue(c *command, word string) bool {
	f := lookupFlag(c, word)
	return f != nil && f.NoOptDefVal == "" && !strings.Contains(word, "=")
}

// lookupFlag is the flag word names (--name or -x, no value in it), among
// c's flags, or every command's before one is given.
func lookupFlag(c *command, word string) *pflag.Flag {
	var sets []*pflag.FlagSet
	if c.name != "" {
		sets = []*pflag.FlagSet{c.own, c.shared}
	} else {
		for _, o := range commands(streams{stdout: io.Discard, stderr: io.Discard}) {
			sets = append(sets, o.own, o.shared)
		}
	}
	for _, fs := range sets {
		switch {
		case strings.HasPrefix(word, "--"):
			if f := fs.Lookup(word[2:]); f != nil {
				return f
			}
		case strings.HasPrefix(word, "-") && len(word) >= 2:
			// the last shorthand of a group (-An) takes the value
			if f := fs.ShorthandLookup(word[len(word)-1:]); f != nil {
				return f
			}
		}
	}
	return nil
}

// flagNames are the flags c takes (every command's before one is given)
// that start with cur; shorthands too when cur is "-".
func flagNames(c *command, cur string) []completion {
	var sets []*pflag.FlagSet
	if c.name != "" && c.name != "help" {
		sets = []*pflag.FlagSet{c.own, c.shared}
	} else {
		// before the command: --help, --version and the kubeconfig flags
		root := pflag.NewFlagSet("root", pflag.ContinueOnError)
		root.Bool("help", false, "show the commands and examples")
		root.Bool("version", false, "print the version and exit")
		(&clusterFlags{}).bind(root, root, 0)
		sets = []*pflag.FlagSet{root}
	}
	var out []completion
	seen := map[string]bool{}
	for _, fs := range sets {
		fs.VisitAll(func(f *pflag.Flag) {
			for _, w := range []string{"--" + f.Name, "-" + f.Shorthand} {
				short := cur == "-" || (len(cur) == 2 && cur[1] != '-')
				if w == "-" || (len(w) == 2 && !short) || seen[w] || !strings.HasPrefix(w, cur) {
					continue
				}
				seen[w] = true
				out = append(out, completion{w, shortUsage(f.Usage)})
			}
		})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].word < out[j].word })
	return out
}

// shortUsage is a flag's help up to its first clause, for a description.
func shortUsage(u string) string {
	for _, sep := range []string{"; ", " (", ". "} {
		if i := strings.Index(u, sep); i > 0 {
			u = u[:i]
		}
	}
	if len(u) <= 80 {
		return u
	}
	cut := strings.LastIndex(u[:80], " ")
	if cut < 0 {
		cut = 80
	}
	return u[:cut] + "..."
}

// positional answers a word that is no flag: the command, or its argument.
func positional(ctx context.Context, c *command, words []string, cur string) ([]completion, int) {
	switch {
	case c.name == "":
		var out []completion
		for _, o := range commands(streams{stdout: io.Discard, stderr: io.Discard}) {
			out = append(out, completion{o.name, o.short})
		}
		out = append(out, completion{"help", "show a command's usage, flags and examples"})
		return prefixed(out, cur), directiveNoFileComp
	case c.name == "help":
		if len(c.args) > 0 {
			return nil, directiveNoFileComp
		}
		return positional(ctx, newCommand(""), nil, cur)
	case c.name == "completion" && len(c.args) == 0:
		return prefixed(choices(shells), cur), directiveNoFileComp
	case c.name == "diagnose" && len(c.args) == 0:
		return objects(ctx, c, "pod", cur)
	case c.name == "diagnose" && len(c.args) == 1 && isKind("pod", c.args[0]):
		return names(ctx, c, "pod", cur), directiveNoFileComp
	case c.name == "gather" && len(c.args) == 0:
		return objects(ctx, c, "node", cur)
	case c.name == "gather" && len(c.args) == 1 && isKind("node", c.args[0]):
		return names(ctx, c, "node", cur), directiveNoFileComp
	}
	return nil, directiveNoFileComp
}

// kinds are kubectl's names of the kinds the commands take.
var kinds = map[string][]string{"pod": {"pod", "pods", "po"}, "node": {"node", "nodes", "no"}}

func isKind(kind, word string) bool { return slices.Contains(kinds[kind], word) }

// objects answers the argument of diagnose or gather: KIND/ (no space
// after it), or KIND/NAME from the cluster once KIND/ is typed.
func objects(ctx context.Context, c *command, kind, cur string) ([]completion, int) {
	k, name, ok := strings.Cut(cur, "/")
	if ok && isKind(kind, k) {
		var out []completion
		for _, n := range names(ctx, c, kind, name) {
			out = append(out, completion{k + "/" + n.word, ""})
		}
		return out, directiveNoFileComp
	}
	return prefixed([]completion{{kind + "/", "a " + kind + " by name: " + kind + "/NAME"}}, cur), directiveNoFileComp | directiveNoSpace
}

// flagValues answers the value of flag (as written: --output, -o) of c.
func flagValues(ctx context.Context, c *command, words []string, flag, cur string) ([]completion, int) {
	f := lookupFlag(c, strings.SplitN(flag, "=", 2)[0])
	if f == nil {
		return nil, directiveNoFileComp
	}
	switch f.Name {
	case "output":
		var out []completion
		for _, v := range outputValues(c) {
			out = append(out, completion{v, ""})
		}
		out = prefixed(out, cur)
		d := directiveNoFileComp
		if len(out) > 0 && !slices.ContainsFunc(out, func(c completion) bool { return !strings.HasSuffix(c.word, "=") }) {
			d |= directiveNoSpace // jsonpath=: the template follows
		}
		return out, d
	case "progress":
		return prefixed(choices([]string{"auto", "always", "never"}), cur), directiveNoFileComp
	case "namespace", "agent-namespace":
		return names(ctx, c, "namespace", cur), directiveNoFileComp
	case "context", "cluster", "user":
		return prefixed(kubeconfigNames(c, f.Name), cur), directiveNoFileComp
	case "out":
		return nil, directiveFilterDirs
	case "kubeconfig", "certificate-authority", "client-certificate", "client-key":
		return nil, 0 // file names, from the shell
	}
	return nil, directiveNoFileComp
}

// outputValues are the -o values of c, the template ones as "jsonpath=".
func outputValues(c *command) []string {
	var formats []string
	switch c.name {
	case "diagnose":
		formats = diagnoseFormats
	case "nodes":
		formats = nodesFormats
	case "version":
		formats = versionFormats
	}
	var out []string
	for _, f := range formats {
		out = append(out, strings.TrimSuffix(f, "TEMPLATE"))
	}
	return out
}

// kubeconfigNames are the contexts, clusters or users of the kubeconfig
// the words name (or the default one): read from the file, no cluster asked.
func kubeconfigNames(c *command, what string) []completion {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if c.cluster != nil {
		rules.ExplicitPath = c.cluster.kubeconfig
	}
	cfg, err := rules.Load()
	if err != nil {
		return nil
	}
	var keys []string
	switch what {
	case "context":
		for k := range cfg.Contexts {
			keys = append(keys, k)
		}
	case "cluster":
		for k := range cfg.Clusters {
			keys = append(keys, k)
		}
	case "user":
		for k := range cfg.AuthInfos {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return choices(keys)
}

// names are the names of the pods (in the namespace the words give), nodes
// or namespaces that start with prefix, asked of the cluster with the
// kubeconfig flags of the words, within completeTimeout and one page of
// metadata only; none when the cluster cannot be asked.
func names(ctx context.Context, c *command, kind, prefix string) []completion {
	if c.cluster == nil {
		return nil
	}
	f := *c.cluster
	f.timeout = completeTimeout
	if f.validate() != nil {
		return nil
	}
	k, err := connect(f)
	if err != nil {
		return nil
	}
	mc, err := metadata.NewForConfigAndClient(k.config, k.http)
	if err != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, completeTimeout)
	defer cancel()
	gvr := schema.GroupVersionResource{Version: "v1", Resource: kind + "s"}
	ri := mc.Resource(gvr)
	var list *metav1.PartialObjectMetadataList
	if kind == "pod" {
		list, err = ri.Namespace(k.namespace).List(ctx, metav1.ListOptions{Limit: maxCompletions})
	} else {
		list, err = ri.List(ctx, metav1.ListOptions{Limit: maxCompletions})
	}
	if err != nil {
		return nil
	}
	var out []completion
	for _, o := range list.Items {
		if strings.HasPrefix(o.Name, prefix) {
			out = append(out, completion{o.Name, ""})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].word < out[j].word })
	return out
}

func choices(s []string) []completion {
	out := make([]completion, len(s))
	for i, w := range s {
		out[i] = completion{word: w}
	}
	return out
}

// prefixed keeps the answers that start with cur.
func prefixed(cs []completion, cur string) []completion {
	var out []completion
	for _, c := range cs {
		if strings.HasPrefix(c.word, cur) {
			out = append(out, c)
		}
	}
	return out
}
