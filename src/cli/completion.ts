/**
 * `listkeeper completion bash|zsh`: a completion script generated from the command tree itself,
 * so it always offers the commands and options this version has. It completes command words,
 * options, and the values of options and arguments that have a fixed set of choices.
 */
import { Argument, type Command } from 'commander';

interface Entry {
  word: string;
  description: string;
}

interface Node {
  /** The command words after `listkeeper`, space-separated ('' for the top). */
  path: string;
  entries: Entry[];
  /** Choices of an option's value, by option word. */
  valueChoices: Map<string, string[]>;
}

/** The first sentence of a description, on one line. */
function brief(text: string): string {
  return (
    text
      .replace(/\s+/g, ' ')
      .trim()
      .split(/(?<=\.) /)[0] ?? ''
  );
}

function collect(command: Command, words: string[], out: Node[]): void {
  const entries: Entry[] = [];
  const valueChoices = new Map<string, string[]>();
  for (const sub of command.commands) entries.push({ word: sub.name(), description: brief(sub.description()) });
  for (const argument of command.registeredArguments as Argument[])
    for (const choice of argument.argChoices ?? []) entries.push({ word: choice, description: brief(argument.description) });
  for (const option of command.options) {
    for (const flag of [option.long, option.short]) {
      if (!flag) continue;
      entries.push({ word: flag, description: brief(option.description) });
      if (option.argChoices) valueChoices.set(flag, option.argChoices);
    }
  }
  entries.push({ word: '--help', description: 'display help for the command' });
  out.push({ path: words.join(' '), entries, valueChoices });
  for (const sub of command.commands) collect(sub, [...words, sub.name()], out);
}

/** Quotes for a single-quoted shell word. */
function quote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** The walk both shells do: the longest run of command words typed so far, ignoring options and their values. */
function pathCase(nodes: Node[], variable: string, zsh: boolean): string {
  const paths = nodes.filter((n) => n.path !== '').map((n) => quote(` ${n.path}`));
  return zsh ? `      (${paths.join('|')}) ${variable}="$candidate" ;;` : `      ${paths.join('|')}) ${variable}="$candidate" ;;`;
}

function bashScript(nodes: Node[]): string {
  const valueCases = nodes.flatMap((n) =>
    [...n.valueChoices].map(
      ([flag, choices]) => `    ${quote(`${n.path ? ` ${n.path}` : ''}|${flag}`)}) COMPREPLY=($(compgen -W ${quote(choices.join(' '))} -- "$cur")); return ;;`,
    ),
  );
  const wordCases = nodes.map((n) => `    ${quote(n.path ? ` ${n.path}` : '')}) words=${quote(n.entries.map((e) => e.word).join(' '))} ;;`);
  return `# bash completion for listkeeper. Load it with: source <(listkeeper completion bash)
_listkeeper() {
  local cur prev path candidate words i
  cur="\${COMP_WORDS[COMP_CWORD]}"
  prev="\${COMP_WORDS[COMP_CWORD-1]}"
  path=""
  for ((i = 1; i < COMP_CWORD; i++)); do
    candidate="$path \${COMP_WORDS[i]}"
    case "$candidate" in
${pathCase(nodes, 'path', false)}
    esac
  done
  case "$path|$prev" in
${valueCases.join('\n')}
  esac
  words=""
  case "$path" in
${wordCases.join('\n')}
  esac
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -F _listkeeper listkeeper
`;
}

function zshScript(nodes: Node[]): string {
  const entry = (e: Entry) => quote(`${e.word.replace(/:/g, '\\:')}:${e.description}`);
  const valueCases = nodes.flatMap((n) =>
    [...n.valueChoices].map(
      ([flag, choices]) =>
        `    (${quote(`${n.path ? ` ${n.path}` : ''}|${flag}`)}) entries=(${choices.map(quote).join(' ')}); _describe -t values 'value' entries; return ;;`,
    ),
  );
  const wordCases = nodes.map((n) => `    (${quote(n.path ? ` ${n.path}` : '')}) entries=(${n.entries.map(entry).join(' ')}) ;;`);
  return `#compdef listkeeper
# zsh completion for listkeeper. Load it after compinit with: source <(listkeeper completion zsh)
_listkeeper() {
  local path_ candidate i
  local -a entries
  path_=""
  for ((i = 2; i < CURRENT; i++)); do
    candidate="$path_ \${words[i]}"
    case "$candidate" in
${pathCase(nodes, 'path_', true)}
    esac
  done
  case "$path_|\${words[CURRENT-1]}" in
${valueCases.join('\n')}
  esac
  case "$path_" in
${wordCases.join('\n')}
  esac
  _describe -t commands 'listkeeper' entries
}
compdef _listkeeper listkeeper
`;
}

/** Adds `completion <shell>`, which prints the script for the whole program. */
export function registerCompletion(program: Command): void {
  program
    .command('completion')
    .description('Print a shell completion script: source <(listkeeper completion bash), or zsh.')
    .addArgument(new Argument('<shell>', 'bash or zsh').choices(['bash', 'zsh']))
    .action((shell: 'bash' | 'zsh') => {
      const nodes: Node[] = [];
      collect(program, [], nodes);
      process.stdout.write(shell === 'bash' ? bashScript(nodes) : zshScript(nodes));
    });
}
