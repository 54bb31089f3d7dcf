// The completion scripts `fisk-ai completion` prints, written from the command tree, so they
// offer exactly the commands and options the parser knows. They complete words only: the
// shell's own file completion takes over for values and prompts.

/** What completion offers after a command: its subcommands or its argument's choices, and its options. */
export interface CommandWords {
  path: string[];
  words: string[];
  options: string[];
  /** Options followed by a value (a file, an id), where no word is offered. */
  valued: string[];
}

/** The completion script for `shell` of the commands in `tree`. */
export function completionScript(shell: "bash" | "zsh", tree: CommandWords[]): string {
  return shell === "bash" ? bashScript(tree) : zshScript(tree);
}

/** The case arms both shells share: where a word leads, which words take a value, what to offer. */
function arms(tree: CommandWords[], offer: (entry: CommandWords) => string): { steps: string; values: string; offers: string } {
  const at = (path: string[]) => `"${path.join(" ")}`;
  const steps = tree
    .filter(({ path }) => path.length > 0)
    .map(({ path }) => `      ${at(path.slice(0, -1))}:${path.at(-1)}") at=${at(path)}" ;;`)
    .join("\n");
  const values = tree.flatMap(({ path, valued }) => valued.map((flag) => `${at(path)}:${flag}"`)).join("|");
  const offers = tree.map((entry) => `    ${at(entry.path)}") ${offer(entry)} ;;`).join("\n");
  return { steps, values, offers };
}

function bashScript(tree: CommandWords[]): string {
  const { steps, values, offers } = arms(tree, ({ words, options }) => `words="${words.join(" ")}" options="${options.join(" ")}"`);
  return `# fisk-ai completion for bash. Load it with: source <(fisk-ai completion bash)
# or save it as ~/.local/share/bash-completion/completions/fisk-ai
_fisk_ai() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}" at="" word words="" options="" i
  for ((i = 1; i < COMP_CWORD; i++)); do
    word="\${COMP_WORDS[i]}"
    case "$at:$word" in
${steps}
    esac
  done
  # An option's value: the shell's file completion (complete -o default).
  case "$at:$prev" in
    ${values}) COMPREPLY=(); return ;;
  esac
  case "$at" in
${offers}
  esac
  if [[ "$cur" == -* ]]; then words="$options"; fi
  mapfile -t COMPREPLY < <(compgen -W "$words" -- "$cur")
}
complete -o default -F _fisk_ai fisk-ai
`;
}

function zshScript(tree: CommandWords[]): string {
  const { steps, values, offers } = arms(tree, ({ words, options }) => `offered=(${words.join(" ")}) options=(${options.join(" ")})`);
  return `#compdef fisk-ai
# fisk-ai completion for zsh. Save it as _fisk-ai in a directory on $fpath,
# or load it after compinit with: source <(fisk-ai completion zsh)
_fisk_ai() {
  local at="" word i
  local -a offered options
  for ((i = 2; i < CURRENT; i++)); do
    word="\${words[i]}"
    case "$at:$word" in
${steps}
    esac
  done
  case "$at:\${words[CURRENT-1]}" in
    ${values}) _files; return ;;
  esac
  case "$at" in
${offers}
  esac
  if [[ "\${words[CURRENT]}" == -* ]]; then
    compadd -- "\${options[@]}"
  elif (( \${#offered} )); then
    compadd -- "\${offered[@]}"
  else
    _files
  fi
}
if [[ "\${funcstack[1]}" == "_fisk-ai" ]]; then _fisk_ai "$@"; else compdef _fisk_ai fisk-ai; fi
`;
}
