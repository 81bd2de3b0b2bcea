package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/pflag"
)

// streams are where a command writes.
type streams struct{ stdout, stderr io.Writer }

// fail reports err on stderr and returns the exit status of a command that
// could not run (2).
func (s streams) fail(err error) int {
	fmt.Fprintln(s.stderr, "kubectl-numascope:", err)
	return 2
}

// runner is a command's options, in the shape of kubectl's commands:
// Complete reads the positional arguments and fills in what follows from
// the flags, Validate checks the flags' values (neither touches the
// cluster), and Run connects, does the work and returns the exit status.
type runner interface {
	Complete(args []string) error
	Validate() error
	Run(ctx context.Context) int
}

// command is one subcommand: its help, its flags and its options.
type command struct {
	name    string
	use     string // the synopsis, after "kubectl numascope "
	short   string // its line in the list of commands
	long    string // what it does, for its help
	example string // commented examples, each line indented by two spaces
	exit    string // its exit statuses
	own     *pflag.FlagSet
	shared  *pflag.FlagSet // the connection flags it takes
	help    bool
	opts    runner
	// cluster is the connection flags' values, for the commands that take
	// them; args are the arguments after the flags (set by commandOf, for
	// completions).
	cluster *clusterFlags
	args    []string
}

func newCommand(name string) *command {
	c := &command{name: name, own: pflag.NewFlagSet(name, pflag.ContinueOnError), shared: pflag.NewFlagSet(name, pflag.ContinueOnError)}
	c.own.BoolVarP(&c.help, "help", "h", false, "show this help")
	return c
}

// flags is the set the command line is parsed with: its own flags and the
// connection flags it takes.
func (c *command) flags() *pflag.FlagSet {
	fs := pflag.NewFlagSet(c.name, pflag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are reported by parse, help by printHelp
	fs.Usage = func() {}
	fs.AddFlagSet(c.own)
	fs.AddFlagSet(c.shared)
	return fs
}

func (c *command) takes(name string) bool {
	return c.own.Lookup(name) != nil || c.shared.Lookup(name) != nil
}

// commands are the subcommands, in the order the help lists them, each with
// fresh options that write to s.
func commands(s streams) []*command {
	return []*command{newDiagnose(s), newGather(s), newNodes(s), newVersion(s), newCompletion(s)}
}

// orList is "a, b or c".
func orList(s []string) string {
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}

// objectName reads the argument of a command that takes one object of kind
// (pod, node): KIND/NAME, KIND NAME or NAME, with kubectl's names of the
// kind.
func objectName(cmd, kind string, args []string) (string, error) {
	aliases := map[string]map[string]bool{
		"pod":  {"pod": true, "pods": true, "po": true},
		"node": {"node": true, "nodes": true, "no": true},
	}[kind]
	var name string
	switch {
	case len(args) == 1 && strings.Contains(args[0], "/"):
		k, n, _ := strings.Cut(args[0], "/")
		if !aliases[k] {
			return "", fmt.Errorf("%s takes %s/NAME, not %q", cmd, kind, args[0])
		}
		name = n
	case len(args) == 2 && aliases[args[0]]:
		name = args[1]
	case len(args) == 1:
		name = args[0]
	default:
		return "", fmt.Errorf("%s takes one %s/NAME", cmd, kind)
	}
	if name == "" || strings.Contains(name, "/") {
		return "", fmt.Errorf("%s: %q is not a %s name", cmd, name, kind)
	}
	return name, nil
}

// errNoCommand is a command line without a command.
var errNoCommand = errors.New("give a command: " + commandList)

// commandList is the commands as the usage errors name them.
const commandList = "diagnose pod/NAME, gather node/NAME --out DIR, nodes, or version"

// parse reads a command line: the command (the first word that is not a
// flag or a flag's value: flags may come before it, as kubectl's do), its
// flags and its arguments, then completes and validates its options. help
// says -h, --help or `help` was given: c is the command whose help to
// print, nil for the list of commands.
func parse(args []string, s streams) (c *command, help bool, err error) {
	cmds := commands(s)
	all := pflag.NewFlagSet("all", pflag.ContinueOnError)
	for _, c := range cmds {
		all.AddFlagSet(c.own)
		all.AddFlagSet(c.shared)
	}
	at, used := scan(args, all)
	for _, u := range used {
		if all.Lookup(u.name) == nil {
			return nil, false, fmt.Errorf("unknown flag %s: no command takes it (kubectl numascope -h lists the commands, kubectl numascope COMMAND -h their flags)", u.written)
		}
	}
	given := func(name string) bool {
		return slices.ContainsFunc(used, func(u flagUse) bool { return u.name == name })
	}
	rest := args
	switch {
	case at < 0 && given("help"):
		return nil, true, nil
	case at < 0 && given("version"):
		// --version alone is the version command
		c = cmds[slices.IndexFunc(cmds, func(c *command) bool { return c.name == "version" })]
	case at < 0:
		return nil, false, errNoCommand
	case args[at] == "help":
		return helpFor(cmds, args[at+1:])
	default:
		i := slices.IndexFunc(cmds, func(c *command) bool { return c.name == args[at] })
		if i < 0 {
			return nil, false, fmt.Errorf("unknown command %q: give %s (kubectl numascope -h lists them)", truncate(args[at], 64), commandList)
		}
		c = cmds[i]
		rest = slices.Concat(args[:at], args[at+1:])
	}
	if err := misplaced(c, cmds, used); err != nil {
		return nil, false, err
	}
	fs := c.flags()
	if err := fs.Parse(rest); err != nil {
		return nil, false, fmt.Errorf("%s: %v (kubectl numascope %s -h shows its flags)", c.name, flagError(err), c.name)
	}
	if c.help {
		return c, true, nil
	}
	if err := c.opts.Complete(fs.Args()); err != nil {
		return nil, false, fmt.Errorf("%w (kubectl numascope %s -h shows its usage and examples)", err, c.name)
	}
	if err := c.opts.Validate(); err != nil {
		return nil, false, err
	}
	return c, false, nil
}

// flagError is pflag's error for a value a flag cannot take, said as the
// plugin's other usage errors are: the flag, the value (a bool, a number or
// a duration: never a credential, which no check of pflag refuses) and what
// the flag accepts.
func flagError(err error) error {
	var iv *pflag.InvalidValueError
	if !errors.As(err, &iv) || iv.GetFlag() == nil {
		return err
	}
	f := iv.GetFlag()
	want := map[string]string{
		"bool":     "true or false (or the flag alone for true)",
		"duration": "a duration such as 30s or 2m",
		"int":      "a whole number",
	}[f.Value.Type()]
	if want == "" {
		return err
	}
	return fmt.Errorf("--%s %q: give %s", f.Name, truncate(iv.GetValue(), 64), want)
}

// helpFor is `help [COMMAND]`.
func helpFor(cmds []*command, args []string) (*command, bool, error) {
	switch len(args) {
	case 0:
		return nil, true, nil
	case 1:
		for _, c := range cmds {
			if c.name == args[0] {
				return c, true, nil
			}
		}
		return nil, false, fmt.Errorf("help %s: no such command: give diagnose, gather, nodes or version", truncate(args[0], 64))
	}
	return nil, false, fmt.Errorf("help takes one command (got %q)", args)
}

// misplaced refuses the flags given to c that belong to other commands,
// naming each with the commands that take it.
func misplaced(c *command, cmds []*command, used []flagUse) error {
	var wrong []string
	for _, u := range used {
		if c.takes(u.name) {
			continue
		}
		var takers []string
		for _, o := range cmds {
			if o.takes(u.name) {
				takers = append(takers, o.name)
			}
		}
		if w := "--" + u.name + " (" + strings.Join(takers, ", ") + ")"; !slices.Contains(wrong, w) {
			wrong = append(wrong, w)
		}
	}
	if len(wrong) == 0 {
		return nil
	}
	return fmt.Errorf("%s does not take %s: each flag goes with the command in brackets", c.name, strings.Join(wrong, ", "))
}

// flagUse is one flag as the command line gives it.
type flagUse struct {
	name    string // its long name, or the name given when no command has it
	written string // as given: --out, -o, -x
}

// scan finds the command word in args (-1 if there is none) and the flags
// around it, knowing from all which flags take a value, written as the
// next word or after = (the long form), or as the rest of the word (the
// short form): that word is never the command.
func scan(args []string, all *pflag.FlagSet) (at int, used []flagUse) {
	at = -1
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--": // the words after it are arguments
			if at < 0 && i+1 < len(args) {
				at = i + 1
			}
			return at, used
		case strings.HasPrefix(a, "--"):
			name, _, inline := strings.Cut(a[2:], "=")
			u := flagUse{name: name, written: "--" + name}
			f := all.Lookup(name)
			if f != nil && f.NoOptDefVal == "" && !inline {
				i++
			}
			used = append(used, u)
		case strings.HasPrefix(a, "-") && len(a) > 1:
			for j := 1; j < len(a); j++ {
				f := all.ShorthandLookup(a[j : j+1])
				if f == nil {
					used = append(used, flagUse{name: a[j : j+1], written: "-" + a[j:j+1]})
					break
				}
				used = append(used, flagUse{name: f.Name, written: "-" + f.Shorthand})
				if f.NoOptDefVal == "" { // the rest of the word, or the next, is its value
					if j == len(a)-1 {
						i++
					}
					break
				}
			}
		case at < 0:
			at = i
		}
	}
	return at, used
}
