package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
)

// completionOptions are the options of `completion bash|zsh|fish`.
type completionOptions struct {
	streams
	shell string
}

// shells are the shells completion writes a script for.
var shells = []string{"bash", "zsh", "fish"}

func newCompletion(s streams) *command {
	o := &completionOptions{streams: s}
	c := newCommand("completion")
	c.use = "completion bash|zsh|fish"
	c.short = "print the shell completion script: bash, zsh or fish"
	c.long = `Prints a script that completes kubectl-numascope's commands, flags, -o values, kinds
(pod/, node/) and, from the cluster, pod, node and namespace names. Every script asks
kubectl-numascope __complete for the answers, as kubectl's own completion (Cobra's)
does. kubectl itself completes "kubectl numascope ..." through the executable
kubectl_complete-numascope on PATH (kubectl 1.26 and later), which runs
kubectl-numascope __complete: install it next to kubectl-numascope.`
	c.example = `  # bash: now, and in every new shell
  source <(kubectl-numascope completion bash)
  kubectl-numascope completion bash > ~/.local/share/bash-completion/completions/kubectl-numascope

  # zsh (a directory on fpath), fish
  kubectl-numascope completion zsh > "${fpath[1]}/_kubectl-numascope"
  kubectl-numascope completion fish > ~/.config/fish/completions/kubectl-numascope.fish

  # kubectl numascope <TAB>: the helper kubectl runs, on PATH beside the plugin
  install -m 0755 kubectl_complete-numascope ~/.local/bin/`
	c.exit = "0, or 2 when the command line is wrong."
	c.opts = o
	return c
}

// Complete reads the shell.
func (o *completionOptions) Complete(args []string) error {
	if len(args) != 1 {
		return fmt.Errorf("completion takes one shell: %s", orList(shells))
	}
	o.shell = strings.ToLower(args[0])
	return nil
}

// Validate checks the shell.
func (o *completionOptions) Validate() error {
	if !slices.Contains(shells, o.shell) {
		return fmt.Errorf("completion %q: give %s", truncate(o.shell, 64), orList(shells))
	}
	return nil
}

// Run prints the script.
func (o *completionOptions) Run(context.Context) int {
	script := map[string]string{"bash": bashCompletion, "zsh": zshCompletion, "fish": fishCompletion}[o.shell]
	if _, err := io.WriteString(o.stdout, script); err != nil {
		return o.fail(err)
	}
	return 0
}

// The directives of the last line of __complete's answer, as Cobra writes
// them (":4"), which kubectl reads from a plugin's kubectl_complete-NAME.
const (
	directiveError      = 1
	directiveNoSpace    = 2
	directiveNoFileComp = 4
	directiveFilterDirs = 16
	directiveKeepOrder  = 32
)

// bashCompletion is the bash script: the words up to the cursor go to
// __complete, the answers (without their descriptions) to COMPREPLY. bash
// splits --flag=value at the "=": __complete reads "--flag" "=" "value"
// as one word.
const bashCompletion = `# bash completion for kubectl-numascope                     -*- shell-script -*-
# source <(kubectl-numascope completion bash)
__kubectl_numascope_complete() {
    local cur=${COMP_WORDS[COMP_CWORD]} out directive line
    local -a args=("${COMP_WORDS[@]:1:COMP_CWORD}") comps=()
    out=$("${COMP_WORDS[0]}" __completeNoDesc "${args[@]}" 2>/dev/null) || return
    directive=${out##*:}
    [[ $directive =~ ^[0-9]+$ ]] || directive=0
    out=${out%:*}
    if (( directive & 1 )); then
        return
    fi
    while IFS= read -r line; do
        [[ -n $line ]] && comps+=("$line")
    done <<< "$out"
    [[ $cur == = ]] && cur=
    if (( ${#comps[@]} > 0 )); then
        COMPREPLY=("${comps[@]}")
        if (( directive & 2 )); then
            compopt -o nospace 2>/dev/null
        fi
    elif (( directive & 16 )); then
        compopt -o filenames 2>/dev/null
        mapfile -t COMPREPLY < <(compgen -d -- "$cur")
    elif (( (directive & 4) == 0 )); then
        compopt -o filenames 2>/dev/null
        mapfile -t COMPREPLY < <(compgen -f -- "$cur")
    fi
}
complete -F __kubectl_numascope_complete kubectl-numascope
`

// zshCompletion is the zsh script (a #compdef file, or sourced).
const zshCompletion = `#compdef kubectl-numascope
# zsh completion for kubectl-numascope: kubectl-numascope completion zsh > "${fpath[1]}/_kubectl-numascope"
_kubectl_numascope() {
    local out directive line
    local -a lines comps
    out=$("${words[1]}" __complete "${(@)words[2,CURRENT]}" 2>/dev/null) || return 1
    lines=("${(@f)out}")
    directive=${lines[-1]#:}
    [[ $directive == <-> ]] || directive=0
    lines=("${(@)lines[1,-2]}")
    (( directive & 1 )) && return 1
    for line in $lines; do
        [[ -z $line ]] && continue
        if [[ $line == *$'\t'* ]]; then
            comps+=("${${line%%$'\t'*}//:/\\:}:${line#*$'\t'}")
        else
            comps+=("${line//:/\\:}")
        fi
    done
    if (( ${#comps} > 0 )); then
        if (( directive & 2 )); then
            _describe -t completions 'completions' comps -S ''
        else
            _describe -t completions 'completions' comps
        fi
    elif (( directive & 16 )); then
        _files -/
    elif (( (directive & 4) == 0 )); then
        _files
    fi
}
if [[ $funcstack[1] == _kubectl_numascope || $funcstack[1] == _kubectl-numascope ]]; then
    _kubectl_numascope "$@"
else
    compdef _kubectl_numascope kubectl-numascope
fi
`

// fishCompletion is the fish script.
const fishCompletion = `# fish completion for kubectl-numascope: kubectl-numascope completion fish > ~/.config/fish/completions/kubectl-numascope.fish
function __kubectl_numascope_complete
    set -l args (commandline -opc)
    set -l cur (commandline -ct)
    set -l out ($args[1] __complete $args[2..-1] "$cur" 2>/dev/null)
    or return
    set -l directive (string replace -r '^:' '' -- $out[-1])
    string match -qr '^[0-9]+$' -- $directive; or set directive 0
    set -e out[-1]
    if test (math "bitand($directive, 1)") -ne 0
        return
    end
    if test (count $out) -gt 0
        printf '%s\n' $out
    else if test (math "bitand($directive, 16)") -ne 0
        __fish_complete_directories "$cur"
    else if test (math "bitand($directive, 4)") -eq 0
        __fish_complete_path "$cur"
    end
end
complete -c kubectl-numascope -f -a '(__kubectl_numascope_complete)'
`
