/** Shells `brv completion` writes a script for. */
export const COMPLETION_SHELLS = ['bash', 'zsh', 'fish'] as const;
export type CompletionShell = (typeof COMPLETION_SHELLS)[number];

// Each script asks brv itself what can follow the words typed so far (`brv __complete <words…>`,
// answered from the command table, src/views/command-table.ts, with values from the repository:
// topic paths, branches, remotes, review ids, agents, setting keys), so completion never goes stale.

const BASH = `###-begin-brv-completions-###
# brv completion for bash. Install: brv completion bash > ~/.local/share/bash-completion/completions/brv
# (or add 'source <(brv completion bash)' to ~/.bashrc). Also completes 'git brv …' with git's completion.
_brv_complete_words() {
  # brv prints the candidates that fit the word being typed, one a line. They are taken as printed, never
  # through compgen -W, which would run a $(…) or \`…\` in a name (topic paths and review ids come from
  # pushes); one with a character the shell reads is quoted (printf %q).
  local line
  COMPREPLY=()
  while IFS= read -r line; do
    if [[ $line == *[^[:alnum:]_./:@%+,=-]* ]]; then printf -v line '%q' "$line"; fi
    COMPREPLY+=("$line")
  done < <(brv __complete "$@" 2>/dev/null)
  # A folder (security/) is completed further, not ended with a space.
  if [[ \${#COMPREPLY[@]} -eq 1 && \${COMPREPLY[0]} == */ ]]; then compopt -o nospace 2>/dev/null || true; fi
}
_brv_completions() {
  _brv_complete_words "\${COMP_WORDS[@]:1:COMP_CWORD}"
}
_git_brv() {
  _brv_complete_words "\${COMP_WORDS[@]:2:COMP_CWORD-1}"
}
complete -o bashdefault -o default -F _brv_completions brv
###-end-brv-completions-###
`;

const ZSH = `#compdef brv
###-begin-brv-completions-###
# brv completion for zsh. Install: brv completion zsh > "\${fpath[1]}/_brv" (or add
# 'source <(brv completion zsh)' to ~/.zshrc after compinit).
_brv() {
  local -a reply
  local IFS=$'\\n'
  reply=($(brv __complete "\${(@)words[2,CURRENT]}" 2>/dev/null))
  if (( \${#reply} )); then _describe 'values' reply; else _default; fi
}
if [[ "\${zsh_eval_context[-1]}" == "loadautofunc" ]]; then
  _brv "$@"
else
  compdef _brv brv
fi
###-end-brv-completions-###
`;

const FISH = `###-begin-brv-completions-###
# brv completion for fish. Install: brv completion fish > ~/.config/fish/completions/brv.fish
function __brv_complete
    set -l words (commandline -opc)
    set -l current (commandline -ct)
    test (count $current) -eq 0; and set current ''
    brv __complete $words[2..-1] $current 2>/dev/null
end
complete -c brv -f -a '(__brv_complete)'
###-end-brv-completions-###
`;

/** The completion script for a shell. */
export function completionScript(shell: CompletionShell): string {
  return shell === 'bash' ? BASH : shell === 'zsh' ? ZSH : FISH;
}
