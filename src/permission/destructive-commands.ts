/**
 * The fail-closed check of a bash command line, used by the permission service.
 *
 * The line is parsed with the real bash grammar (tree-sitter-bash) and the syntax tree is walked
 * node by node. Every node type the walker does not know, and every construct whose effect cannot
 * be decided before the command runs, is a finding that names the construct; so are the rows of the
 * table (`command-table.ts`). The service asks whenever there is a finding: in auto mode a command
 * runs without asking only when every simple command in it is resolved statically and matches no row.
 *
 * "Resolved statically" means: the command name is a literal word after quote removal; wrappers
 * (`sudo`, `timeout`, `xargs`, `env`, …) are peeled off with their options understood; scripts given
 * inline (`bash -c '…'`, `eval`, `trap`, `env -S`, here-strings) are parsed and checked in turn; and
 * for every command the table or a wrapper cares about, the arguments are literal too (a computed
 * argument to `rm` could be `-rf`; one to `echo` cannot hurt). Writes are checked against protected
 * and system locations after normalising the path.
 *
 * Known limits (also in docs/security.md): programs given to other interpreters (`python3 -c`) and
 * scripts run by file (`bash build.sh`, `source env.sh`) are not read; commands run elsewhere
 * (`ssh host '…'`, `docker exec`) are not inspected; the file system can change between the check
 * and the run (a symlink created by the same command).
 */
import os from 'node:os';
import path from 'node:path';
import {
  type BashGrammar,
  bashGrammarFailure,
  loadedBashGrammar,
  type SyntaxNode,
  SyntaxTooDeepError,
} from './bash-grammar.js';
import {
  type CommandView,
  DESTRUCTIVE_COMMANDS,
  interpreterReadsStdin,
  isInterpreterName,
  positionals,
  type RuleScope,
  SHELLS,
  type ShellRedirect,
  STDIN_REDIRECTS,
  tableCommandNames,
  writeTargets,
} from './command-table.js';
import { DYNAMIC, literalWord, mayBecomeOptions, resolveWord, type ShellWord } from './shell-words.js';
import { isKnownReadOnly, possiblyWrittenWords } from './word-writes.js';
import { unwrap, WRAPPERS } from './wrappers.js';

export { type CommandView, DESTRUCTIVE_COMMANDS, type DestructiveRule } from './command-table.js';

export interface DestructiveFinding {
  id: string;
  description: string;
  /** The offending command or construct, for the reason text. */
  command: string;
  /** `every-mode`: asks in every mode but bypass, even against an allow rule. */
  scope: RuleScope;
}

/** A path a command writes (or enters with `cd`), statically known. */
export interface WrittenPath {
  path: string;
  command: string;
  /** The word holds `*`, `?` or `[`: bash replaces it with the names it matches when it runs. */
  glob: boolean;
}

export interface CommandAnalysis {
  findings: DestructiveFinding[];
  /** Files the command writes, as written (statically known ones only), for the protected-path check. */
  writes: WrittenPath[];
  /** Every word and path-like token of every command, read or written: for the user-folder check. */
  mentions: WrittenPath[];
}

export interface AnalysisOptions {
  /** What `~` and `$HOME` stand for. Default: the OS's home folder. */
  homeDir?: string;
  /** Default: the grammar loaded by `loadBashGrammar()`. */
  grammar?: BashGrammar;
}

/** Lines longer than this are not parsed; they ask. */
export const MAX_COMMAND_CHARS = 100_000;
/** Folders `cd` may enter in one line before the check stops following them (and asks). */
const MAX_FOLDERS = 32;
const MAX_NESTING = 8;

/** Every finding in `commandLine`, in the order found; empty when it runs without asking in auto mode. */
export function findDestructive(commandLine: string, options: AnalysisOptions = {}): DestructiveFinding[] {
  return analyzeCommandLine(commandLine, options).findings;
}

export function analyzeCommandLine(commandLine: string, options: AnalysisOptions = {}): CommandAnalysis {
  const grammar = options.grammar ?? loadedBashGrammar();
  if (!grammar) {
    const why = bashGrammarFailure();
    return {
      findings: [
        construct(
          'grammar-unavailable',
          why
            ? `the bash grammar could not be loaded (${why}), so the command cannot be checked`
            : 'the bash grammar is not loaded yet, so the command cannot be checked',
          commandLine,
        ),
      ],
      writes: [],
      mentions: [],
    };
  }
  const analyzer = new Analyzer(grammar, options.homeDir ?? os.homedir());
  analyzer.script(commandLine, 0);
  return { findings: dedupe(analyzer.findings), writes: analyzer.writes, mentions: analyzer.mentions };
}

function construct(id: string, description: string, command: string): DestructiveFinding {
  return { id, description, command: shorten(command), scope: 'auto' };
}

function shorten(text: string): string {
  const oneLine = text.trim();
  return oneLine.length > 200 ? `${oneLine.slice(0, 200)}…` : oneLine;
}

/** `:(){ :|:& };:` and its renamed variants, spotted in the raw text. */
const FORK_BOMB = /([A-Za-z_:][\w:]*)\(\)\{\1\|\1&\};\1/;

/** Statement containers whose named children are statements (or words, visited for substitutions). */
const CONTAINERS = new Set([
  'program',
  'list',
  'subshell',
  'do_group',
  'if_statement',
  'elif_clause',
  'else_clause',
  'while_statement',
  'negated_command',
  'case_statement',
  'case_item',
  'for_statement',
]);

/** Node types that are (parts of) words. */
const WORD_TYPES = new Set([
  'word',
  'string',
  'raw_string',
  'ansi_c_string',
  'translated_string',
  'concatenation',
  'number',
  'simple_expansion',
  'expansion',
  'command_substitution',
  'process_substitution',
  'arithmetic_expansion',
  'brace_expression',
  'string_content',
]);

/**
 * Variables a command must not set: they make bash, git, the dynamic loader or an interpreter run
 * code the command line does not show.
 */
const CODE_VARIABLES =
  /^(?:BASH_ENV|ENV|SHELLOPTS|BASHOPTS|PS4|PROMPT_COMMAND|BASH_XTRACEFD|LD_PRELOAD|LD_LIBRARY_PATH|LD_AUDIT|GIT_CONFIG\w*|GIT_EXEC_PATH|GIT_SSH|GIT_SSH_COMMAND|GIT_PAGER|GIT_EDITOR|GIT_EXTERNAL_DIFF|GIT_ASKPASS|SSH_ASKPASS|GIT_TEMPLATE_DIR|GIT_DIR|GIT_WORK_TREE|GIT_PROXY_COMMAND|GIT_SEQUENCE_EDITOR|PAGER|EDITOR|VISUAL|LESSOPEN|LESSCLOSE|MANPAGER|BROWSER|PERL5OPT|PERL5LIB|PYTHONSTARTUP|PYTHONPATH|PYTHONHOME|NODE_OPTIONS|NODE_PATH|RUBYOPT|RUBYLIB|IFS|CDPATH|GLOBIGNORE|BASH_LOADABLES_PATH)$/;

/** Builtins that take variable names: a subscript there (`a[$(cmd)]`) is evaluated as code. */
const NAME_TAKING_BUILTINS = new Set([
  'read',
  'mapfile',
  'readarray',
  'printf',
  'unset',
  'declare',
  'typeset',
  'local',
  'export',
  'readonly',
  'getopts',
  'wait',
  'test',
  '[',
  'let',
]);

/** Commands whose arguments are only data: nothing in them is run. */
const DATA_ONLY = new Set([
  'echo',
  'printf',
  'grep',
  'egrep',
  'fgrep',
  'rg',
  'ag',
  'ack',
  'man',
  'which',
  'whereis',
  'type',
  'whatis',
  'apropos',
  'info',
  'help',
  'cat',
  'head',
  'tail',
  'wc',
  'ls',
  'file',
  'stat',
  'true',
  'false',
  ':',
  'git',
]);

/** Words bash treats as syntax at the start of a command; as a command name they mean a misparse. */
const RESERVED_WORDS = new Set([
  'if',
  'then',
  'else',
  'elif',
  'fi',
  'do',
  'done',
  'case',
  'esac',
  'while',
  'until',
  'for',
  'in',
  'select',
  'function',
  'coproc',
  '{',
  '}',
  '!',
  '[[',
  ']]',
]);

const SCRIPT_RUNNERS = new Set(['eval', 'source', '.', 'trap']);

/** Names that, found among another command's arguments, may start a command it runs. */
function triggerNames(): Set<string> {
  return new Set([...tableCommandNames(), ...SHELLS, ...Object.keys(WRAPPERS), ...SCRIPT_RUNNERS]);
}
const TRIGGERS = triggerNames();
/** Commands whose arguments matter: a computed argument could turn them into a row. */
const ARGUMENTS_MATTER = new Set([
  ...TRIGGERS,
  'find',
  'parallel',
  'watch',
  'script',
  'su',
  'runuser',
  'xargs',
  // A computed folder makes every later relative path unknown.
  'cd',
  'pushd',
]);

interface Context {
  depth: number;
  /** Commands found inside substitutions of the word being resolved. */
  substituted: CommandView[];
}

class Analyzer {
  readonly findings: DestructiveFinding[] = [];
  readonly writes: WrittenPath[] = [];
  readonly mentions: WrittenPath[] = [];
  /**
   * The folders a relative path may be relative to: the project root (`''`) and every folder a `cd` or
   * `pushd` on this line enters (`cd ~ && echo x >> .bashrc` writes `~/.bashrc`). A `cd` inside a subshell
   * or a branch not taken leaves the folder unchanged, so every folder seen stays a candidate; an extra
   * candidate can only make a write ask.
   */
  private readonly bases: string[] = [''];
  /** Variables this line assigns from text (not plain numbers): their values may hide code. */
  private readonly tainted = new Set<string>();
  /** Stray arguments of a redirected statement, for its body command to take. */
  private carriedArguments: SyntaxNode[] = [];
  /** Words after a redirection's target, which belong to the command (see `redirect`). */
  private strayArguments: SyntaxNode[] = [];
  private source = '';

  constructor(
    private readonly grammar: BashGrammar,
    private readonly homeDir: string,
  ) {}

  private add(id: string, description: string, command: string): void {
    this.findings.push(construct(id, description, command));
  }

  /** Parses and checks a script; returns the commands it runs. */
  script(text: string, depth: number): CommandView[] {
    if (depth > MAX_NESTING) {
      this.add('nested-too-deeply', 'scripts are nested too deeply to check', text);
      return [];
    }
    if (text.length > MAX_COMMAND_CHARS) {
      this.add('too-long', `the command is longer than ${MAX_COMMAND_CHARS} characters`, text);
      return [];
    }
    if (text.includes('\u0000')) {
      this.add(
        'nul-byte',
        'the command contains a NUL byte, which bash and the checker read differently',
        text,
      );
      return [];
    }
    if (FORK_BOMB.test(text.replace(/\s+/g, ''))) {
      this.add(
        'fork-bomb',
        'fork bomb: a function that spawns itself until the machine stops responding',
        text,
      );
    }
    let root: SyntaxNode;
    try {
      root = this.grammar.parse(text);
    } catch (error) {
      const why = error instanceof SyntaxTooDeepError ? error.message : 'the bash grammar failed on it';
      this.add('unparseable', why, text);
      return [];
    }
    const outer = this.source;
    this.source = text;
    try {
      this.collectTainted(root);
      this.checkGaps(root);
      return this.statement(root, { depth, substituted: [] }, []);
    } finally {
      this.source = outer;
    }
  }

  /**
   * Between the children of a node there may only be blanks and line continuations: anything else is
   * text the grammar skipped, which bash would read (`'x'\ y` is one word to bash, two here).
   */
  private checkGaps(node: SyntaxNode): void {
    // A here-document body is text with substitutions in it, not a sequence of tokens.
    if (node.type === 'heredoc_body' || node.children.length === 0) return;
    let at = node.start;
    for (const child of node.children) {
      const gap = this.source.slice(at, child.start);
      // Only blanks, line breaks and continuations; a carriage return is a word character to bash.
      if (!/^(?:[ \t\n]|\\\n)*$/.test(gap)) {
        this.add(
          'unparseable',
          'the bash grammar skipped part of the command, so bash may read it differently',
          node.text,
        );
        return;
      }
      this.checkGaps(child);
      at = child.end;
    }
  }

  /** Names assigned from anything but a plain number, anywhere in the line. */
  private collectTainted(node: SyntaxNode): void {
    if (node.type === 'variable_assignment') {
      const name = node.children.find((c) => c.field === 'name');
      const value = node.children.find((c) => c.field === 'value');
      const base = name?.type === 'subscript' ? name.children.find((c) => c.field === 'name') : name;
      if (base && value?.type !== 'number') this.tainted.add(base.text);
    } else if (node.type === 'for_statement') {
      const variable = node.children.find((c) => c.field === 'variable');
      if (variable) this.tainted.add(variable.text);
    } else if (node.type === 'command') {
      const name = node.children.find((c) => c.field === 'name')?.text;
      if (name && ['read', 'mapfile', 'readarray', 'getopts', 'printf', 'let', 'wait'].includes(name)) {
        for (const arg of node.children.filter((c) => c.field === 'argument')) {
          for (const m of arg.text.matchAll(/[A-Za-z_][A-Za-z0-9_]*/g)) this.tainted.add(m[0]);
        }
      }
    } else if (node.type === 'declaration_command') {
      for (const child of node.children) {
        if (child.type === 'word' || child.type === 'variable_name') this.tainted.add(child.text);
      }
    }
    for (const child of node.children) this.collectTainted(child);
  }

  // ---------- statements ----------

  private statement(node: SyntaxNode, ctx: Context, inherited: ShellRedirect[]): CommandView[] {
    if (node.broken) {
      this.add(
        'unparseable',
        'the command is not valid bash (or uses syntax the checker does not know)',
        node.text,
      );
      return [];
    }
    // `for NAME in …`: the loop variable is a name, not a command.
    if (!node.named || node.type === 'comment' || node.type === 'variable_name') return [];
    if (CONTAINERS.has(node.type)) return this.container(node, ctx, inherited);
    switch (node.type) {
      case 'compound_statement':
        if (node.children[0]?.type === '((') {
          this.arithmetic(node, ctx);
          return [];
        }
        return this.container(node, ctx, inherited);
      case 'pipeline':
        return this.pipeline(
          node.children.filter((c) => c.named),
          ctx,
          inherited,
        );
      case 'redirected_statement':
        return this.redirected(node, ctx, inherited);
      case 'command':
        return this.command(node, ctx, inherited);
      case 'declaration_command':
        return this.declaration(node, ctx);
      case 'unset_command':
        return this.unset(node, ctx);
      case 'variable_assignment':
        this.assignment(node, ctx);
        return [];
      case 'variable_assignments':
        for (const child of node.children) if (child.named) this.assignment(child, ctx);
        return [];
      case 'test_command':
        this.testCommand(node, ctx);
        return [];
      case 'c_style_for_statement': {
        const out: CommandView[] = [];
        for (const child of node.children) {
          if (!child.named) continue;
          if (child.field === 'body') out.push(...this.statement(child, ctx, inherited));
          else this.arithmetic(child, ctx);
        }
        return out;
      }
      case 'function_definition': {
        const name = node.children.find((c) => c.field === 'name')?.text ?? '?';
        this.add(
          'function-definition',
          `the command defines a function (${name}): a later command of the same name runs its body instead, which the checker does not follow`,
          node.text,
        );
        const body = node.children.find((c) => c.field === 'body');
        return body ? this.statement(body, ctx, inherited) : [];
      }
      default:
        if (WORD_TYPES.has(node.type)) {
          this.word(node, ctx);
          return [];
        }
        this.add(
          'unknown-construct',
          `the checker does not know the bash construct "${node.type}"`,
          node.text,
        );
        return [];
    }
  }

  private container(node: SyntaxNode, ctx: Context, inherited: ShellRedirect[]): CommandView[] {
    const out: CommandView[] = [];
    for (const child of node.children) out.push(...this.statement(child, ctx, inherited));
    return out;
  }

  private pipeline(stageNodes: SyntaxNode[], ctx: Context, inherited: ShellRedirect[]): CommandView[] {
    const stages = stageNodes.map((stage) => this.statement(stage, ctx, inherited));
    this.pipelineRules(stages);
    return stages.flat();
  }

  private pipelineRules(stages: CommandView[][]): void {
    if (stages.length < 2) return;
    for (const rule of DESTRUCTIVE_COMMANDS) {
      if (rule.matchPipeline?.(stages)) {
        this.findings.push({
          id: rule.id,
          description: rule.description,
          command: stages.map((s) => (s[0] ? render(s[0]) : '')).join(' | '),
          scope: rule.scope ?? 'auto',
        });
      }
    }
  }

  private redirected(node: SyntaxNode, ctx: Context, inherited: ShellRedirect[]): CommandView[] {
    const redirects = [...inherited];
    const continuation: SyntaxNode[] = [];
    const outerStray = this.strayArguments;
    this.strayArguments = [];
    for (const child of node.children) {
      if (child.field === 'body') continue;
      if (child.type.endsWith('_redirect')) {
        const parsed = this.redirect(child, ctx, continuation);
        if (parsed) redirects.push(parsed);
      } else if (child.named) {
        this.statement(child, ctx, inherited);
      }
    }
    redirects.push(...this.trailingRedirects(continuation, ctx));
    const body = node.children.find((c) => c.field === 'body');
    const stray = this.strayArguments;
    this.strayArguments = outerStray;
    if (stray.length > 0 && body?.type !== 'command') {
      this.add(
        'unparseable',
        'words follow a redirection of a statement that is not a simple command',
        node.text,
      );
    }
    this.carriedArguments = body?.type === 'command' ? stray : [];
    const views = body ? this.statement(body, ctx, redirects) : [];
    // The redirections write even when the body runs no command (`{ x=1; } > file`, `declare x > file`).
    this.plainRedirects(redirects.slice(inherited.length));
    // `cat <<EOF | sh`: the grammar hangs the rest of the pipeline under the here-document.
    for (const extra of continuation) {
      if (extra.type === 'pipeline') {
        const stages = [
          views,
          ...extra.children.filter((c) => c.named).map((s) => this.statement(s, ctx, [])),
        ];
        this.pipelineRules(stages);
        views.push(...stages.slice(1).flat());
      } else {
        views.push(...this.statement(extra, ctx, []));
      }
    }
    return views;
  }

  private redirect(node: SyntaxNode, ctx: Context, continuation: SyntaxNode[]): ShellRedirect | undefined {
    if (node.broken) {
      this.add('unparseable', 'a redirection is not valid bash', node.text);
      return undefined;
    }
    if (node.type === 'heredoc_redirect') {
      const op = node.children.find((c) => c.type === '<<' || c.type === '<<-')?.type ?? '<<';
      const start = node.children.find((c) => c.type === 'heredoc_start');
      const body = node.children.find((c) => c.type === 'heredoc_body');
      const quoted = start ? /['"\\]/.test(start.text) : false;
      if (body && !quoted) this.word(body, ctx);
      for (const child of node.children) {
        if (
          child.named &&
          !['heredoc_start', 'heredoc_body', 'heredoc_end', 'file_descriptor'].includes(child.type)
        ) {
          continuation.push(child);
        }
      }
      const text = body?.text ?? '';
      return {
        op,
        target: literalWord(start?.text ?? ''),
        heredoc: { body: op === '<<-' ? text.replace(/^\t+/gm, '') : text, quoted },
      };
    }
    const operator = node.children.find((c) => !c.named);
    const target = node.children.find((c) => c.named && c.type !== 'file_descriptor');
    if (!operator || !target) {
      this.add('unknown-construct', 'a redirection the checker does not understand', node.text);
      return undefined;
    }
    this.word(target, ctx);
    // `tee < x FILE`: the grammar hangs every word after a redirection's target under the redirection;
    // bash passes them to the command as arguments.
    this.strayArguments.push(
      ...node.children.filter((c) => c.named && c.type !== 'file_descriptor' && c !== target),
    );
    return { op: operator.type, target: this.resolve(target) };
  }

  /** `cat <<EOF > out`: the grammar hangs redirections after a here-document under it. */
  private trailingRedirects(continuation: SyntaxNode[], ctx: Context): ShellRedirect[] {
    const out: ShellRedirect[] = [];
    for (let i = continuation.length - 1; i >= 0; i--) {
      const node = continuation[i]!;
      if (!node.type.endsWith('_redirect')) continue;
      continuation.splice(i, 1);
      const parsed = this.redirect(node, ctx, continuation);
      if (parsed) out.unshift(parsed);
    }
    return out;
  }

  /** Redirections with no command (`> file`, `exec`-less): still writes. */
  private plainRedirects(redirects: ShellRedirect[]): void {
    if (redirects.length === 0) return;
    this.inspectView({ name: '', args: [], words: [], redirects, substituted: [] }, 0, {});
  }

  private resolve(node: SyntaxNode): ShellWord {
    return resolveWord(node, { homeDir: this.homeDir });
  }

  // ---------- words and what bash evaluates inside them ----------

  /** Visits a word for the commands and evaluations hidden in it. */
  private word(node: SyntaxNode, ctx: Context): void {
    if (node.broken) {
      this.add('unparseable', 'a word is not valid bash', node.text);
      return;
    }
    switch (node.type) {
      case 'command_substitution':
      case 'process_substitution': {
        const inner: Context = { depth: ctx.depth, substituted: [] };
        const views: CommandView[] = [];
        for (const child of node.children) views.push(...this.statement(child, inner, []));
        ctx.substituted.push(...views, ...inner.substituted);
        // `>(bash)`: whatever the outer command writes there is run as a program.
        if (node.children[0]?.type === '>(' && views.some(interpreterReadsStdin)) {
          this.add(
            'script-piped-to-interpreter',
            'text written into >(…) is run by a shell or interpreter, and what it says cannot be checked',
            node.text,
          );
        }
        return;
      }
      case 'arithmetic_expansion':
        this.arithmetic(node, ctx);
        return;
      case 'expansion':
        this.expansion(node, ctx);
        return;
      case 'subscript':
        this.subscript(node, ctx);
        return;
      case 'word':
      case 'string_content':
      case 'heredoc_content':
        this.unparsedExpansions(node, ctx);
        return;
      default:
        for (const child of node.children) if (child.named) this.word(child, ctx);
    }
  }

  /**
   * A plain text node that still holds an unescaped backtick or `$(`, `${`, `$name`: the grammar did
   * not see an expansion bash will perform (it misses backticks inside `${x:-…}`, for one). Ask, and
   * check what the backticks hold anyway, for a more useful reason.
   */
  private unparsedExpansions(node: SyntaxNode, ctx: Context): void {
    const text = node.text;
    const unescaped = text.replace(/\\[\s\S]/g, '');
    if (!/`|\$[({A-Za-z_0-9@*#?$!-]/.test(unescaped)) {
      if (node.type === 'word' && /\s/.test(unescaped)) {
        // Unquoted blanks and newlines end a word in bash; the grammar glued them into one.
        this.add('unparseable', 'the bash grammar read blanks or a line break as part of a word', text);
      }
      return;
    }
    this.add('unparseable', `the bash grammar did not parse an expansion in ${text}`, text);
    for (const m of unescaped.matchAll(/`([^`]*)`/g))
      ctx.substituted.push(...this.script(m[1]!, ctx.depth + 1));
  }

  private expansion(node: SyntaxNode, ctx: Context): void {
    const ops = node.children.filter((c) => c.field === 'operator').map((c) => c.type);
    if (node.children[1]?.type === '!' || ops[0] === '!') {
      this.add(
        'indirect-expansion',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: bash syntax in a message, on purpose.
        '${!name} expands a variable named by another value, and a name like a[$(cmd)] runs code',
        node.text,
      );
    }
    if (ops.includes('@')) {
      const transform = node.children.find((_c, i) => i > 0 && node.children[i - 1]?.type === '@')?.type;
      if (transform === 'P' || transform === undefined) {
        this.add(
          'prompt-expansion',
          // biome-ignore lint/suspicious/noTemplateCurlyInString: bash syntax in a message, on purpose.
          '${x@P} expands the value like a prompt, which runs the $(…) in it',
          node.text,
        );
      }
    }
    // `${x:offset:length}`: offset and length are arithmetic.
    const substring = ops.includes(':');
    for (const child of node.children) {
      if (!child.named) continue;
      if (substring && child.type !== 'variable_name') this.arithmetic(child, ctx);
      else this.word(child, ctx);
    }
  }

  private subscript(node: SyntaxNode, ctx: Context): void {
    const index = node.children.find((c) => c.field === 'index');
    if (!index) return;
    const plain =
      index.type === 'number' ||
      (index.type === 'word' &&
        /^(?:[@*]|[A-Za-z_][A-Za-z0-9_]*)$/.test(index.text) &&
        !this.tainted.has(index.text));
    if (!plain) {
      this.add(
        'subscript-evaluated',
        `the array subscript [${index.text}] is evaluated as arithmetic, which runs code hidden in values`,
        node.text,
      );
    }
    this.word(index, ctx);
  }

  /**
   * Arithmetic (`$(( ))`, `(( ))`, `for ((…))`, subscripts, substring offsets): bash evaluates the
   * value of every variable named in it as arithmetic again, so a value like `a[$(cmd)]` runs cmd.
   * Numbers, operators and variables this line never sets from text are fine.
   */
  private arithmetic(node: SyntaxNode, ctx: Context): void {
    switch (node.type) {
      case 'number':
        return;
      case 'command_substitution':
      case 'process_substitution':
        this.add(
          'arithmetic-evaluates-value',
          'the output of $(…) is evaluated as arithmetic, which runs code hidden in it',
          node.text,
        );
        this.word(node, ctx);
        return;
      case 'subscript':
        this.add(
          'subscript-evaluated',
          `the array subscript in ${node.text} is evaluated as arithmetic`,
          node.text,
        );
        this.word(node, ctx);
        return;
      case 'word':
      case 'variable_name':
        for (const m of node.text.matchAll(/[A-Za-z_][A-Za-z0-9_]*/g)) this.taintedUse(m[0], node.text);
        if (/[[$`]/.test(node.text)) {
          this.add(
            'arithmetic-evaluates-value',
            `arithmetic on ${node.text} evaluates a value as code`,
            node.text,
          );
        }
        return;
      case 'simple_expansion':
      case 'expansion': {
        const name = node.children.find((c) => c.type === 'variable_name')?.text;
        const simple = node.children.filter((c) => c.named).length === 1 && name !== undefined;
        if (!simple) {
          this.add(
            'arithmetic-evaluates-value',
            `arithmetic on ${node.text} evaluates a value as code`,
            node.text,
          );
          this.word(node, ctx);
        } else this.taintedUse(name, node.text);
        return;
      }
      default:
        if (node.broken) {
          this.add('unparseable', 'arithmetic the checker cannot read', node.text);
          return;
        }
        if (
          ['string', 'raw_string', 'ansi_c_string', 'concatenation', 'translated_string'].includes(node.type)
        ) {
          this.add(
            'arithmetic-evaluates-value',
            `arithmetic on ${node.text} evaluates text as code`,
            node.text,
          );
          this.word(node, ctx);
          return;
        }
        for (const child of node.children) if (child.named) this.arithmetic(child, ctx);
    }
  }

  private taintedUse(name: string, where: string): void {
    if (this.tainted.has(name)) {
      this.add(
        'arithmetic-evaluates-value',
        `arithmetic uses ${name}, which this command sets from text; bash evaluates that text as code`,
        where,
      );
    }
  }

  private testCommand(node: SyntaxNode, ctx: Context): void {
    const walk = (n: SyntaxNode): void => {
      if (
        n.type === 'unary_expression' &&
        n.children.some((c) => c.type === 'test_operator' && c.text === '-v')
      ) {
        this.add('test-variable', '[[ -v name ]] evaluates a subscript in the name as code', n.text);
      }
      if (
        n.type === 'binary_expression' &&
        n.children.some((c) => c.field === 'operator' && /^-(?:eq|ne|lt|le|gt|ge)$/.test(c.text))
      ) {
        // In [[ ]], both sides of -eq and friends are arithmetic.
        for (const side of n.children.filter((c) => c.field === 'left' || c.field === 'right'))
          this.arithmetic(side, ctx);
        return;
      }
      if (WORD_TYPES.has(n.type)) {
        this.word(n, ctx);
        return;
      }
      for (const child of n.children) if (child.named) walk(child);
    };
    for (const child of node.children) if (child.named) walk(child);
  }

  private assignment(node: SyntaxNode, ctx: Context): void {
    const name = node.children.find((c) => c.field === 'name');
    const value = node.children.find((c) => c.field === 'value');
    if (name?.type === 'subscript') this.subscript(name, ctx);
    const base =
      name?.type === 'subscript' ? name.children.find((c) => c.field === 'name')?.text : name?.text;
    if (base && CODE_VARIABLES.test(base)) {
      this.add(
        'code-variable',
        `setting ${base} makes bash, git or another program run code the command line does not show`,
        node.text,
      );
    }
    if (value) {
      if (value.type === 'array') {
        for (const element of value.children) if (element.named) this.word(element, ctx);
      } else this.word(value, ctx);
    }
  }

  private declaration(node: SyntaxNode, ctx: Context): CommandView[] {
    const keyword = node.children[0]?.type ?? 'declare';
    for (const child of node.children.slice(1)) {
      if (!child.named) continue;
      if (child.type === 'variable_assignment') {
        this.assignment(child, ctx);
        continue;
      }
      this.word(child, ctx);
      const word = this.resolve(child);
      if (!word.isStatic || word.text.includes('[')) {
        this.add(
          'declaration-evaluated',
          `${keyword} ${child.text}: a computed name or a subscript in it is evaluated as code`,
          node.text,
        );
      } else if (/^-[A-Za-z]*[in]/.test(word.text) || /^\+[A-Za-z]*[in]/.test(word.text)) {
        this.add(
          'declaration-evaluated',
          `${keyword} ${word.text}: integer variables and name references evaluate their values as code`,
          node.text,
        );
      } else if (CODE_VARIABLES.test(word.text.split('=', 1)[0]!)) {
        this.add(
          'code-variable',
          `${keyword} ${word.text} changes a variable that makes programs run code`,
          node.text,
        );
      }
    }
    return [];
  }

  private unset(node: SyntaxNode, ctx: Context): CommandView[] {
    for (const child of node.children.slice(1)) {
      if (!child.named) continue;
      this.word(child, ctx);
      const word = this.resolve(child);
      if (!word.isStatic || word.text.includes('[')) {
        this.add(
          'subscript-evaluated',
          `unset ${child.text}: a subscript in the name is evaluated as code`,
          node.text,
        );
      }
    }
    return [];
  }

  // ---------- simple commands ----------

  private command(node: SyntaxNode, ctx: Context, inherited: ShellRedirect[]): CommandView[] {
    const inner: Context = { depth: ctx.depth, substituted: [] };
    const redirects = [...inherited];
    const words: ShellWord[] = [];
    const continuation: SyntaxNode[] = [];
    const carried = this.carriedArguments;
    this.carriedArguments = [];
    const outerStray = this.strayArguments;
    this.strayArguments = [];
    for (const child of node.children) {
      if (!child.named) continue;
      if (child.broken) {
        this.add(
          'unparseable',
          'part of the command is not valid bash, or syntax the grammar misreads',
          child.text,
        );
      } else if (child.type === 'variable_assignment') {
        this.assignment(child, inner);
      } else if (child.type.endsWith('_redirect')) {
        const parsed = this.redirect(child, inner, continuation);
        if (parsed) redirects.push(parsed);
      } else if (child.field === 'name' || child.field === 'argument') {
        const target = child.type === 'command_name' ? (child.children[0] ?? child) : child;
        this.word(target, inner);
        words.push(this.resolve(target));
      } else if (child.type === 'subshell' || child.type === 'comment') {
        this.statement(child, inner, []);
      } else {
        this.add(
          'unknown-construct',
          `the checker does not know "${child.type}" inside a command`,
          child.text,
        );
      }
    }
    redirects.push(...this.trailingRedirects(continuation, inner));
    for (const stray of [...this.strayArguments, ...carried]) {
      this.word(stray, inner);
      words.push(this.resolve(stray));
    }
    this.strayArguments = outerStray;
    ctx.substituted.push(...inner.substituted);
    if (words.length === 0) {
      this.plainRedirects(redirects);
      return [];
    }
    const name = words[0]!;
    if (name.isStatic && RESERVED_WORDS.has(name.text)) {
      this.add(
        'unparseable',
        `the bash grammar read the reserved word "${name.text}" as a command name, so it misread the line`,
        node.text,
      );
    }
    if (!name.isStatic || name.ansiC || name.glob) {
      this.add(
        'unanalysable-command-name',
        "the command name is built by expansion ($VAR, $(...), $'...', a glob or {a,b}), so what runs cannot be known in advance",
        node.text,
      );
    }
    const view = makeView(words, redirects, inner.substituted);
    const views = this.inspectView(view, ctx.depth, {});
    for (const extra of continuation) views.push(...this.statement(extra, ctx, []));
    return views;
  }

  /**
   * Checks one command against the table and follows what it runs (wrappers, `-c` scripts, `eval`).
   * Returns the command and everything it runs, for the pipeline rules.
   */
  private inspectView(view: CommandView, depth: number, how: { fedArguments?: string }): CommandView[] {
    const views = [view];
    const shown = render(view);
    if (depth > MAX_NESTING) {
      this.add('nested-too-deeply', 'wrappers and scripts are nested too deeply to check', shown);
      return views;
    }
    for (const rule of DESTRUCTIVE_COMMANDS) {
      if (rule.matchCommand?.(view)) {
        this.findings.push({
          id: rule.id,
          description: rule.description,
          command: shown,
          scope: rule.scope ?? 'auto',
        });
      }
    }
    this.checkWrites(view, shown);
    if (view.name === '') return views;

    const argumentsMatter = ARGUMENTS_MATTER.has(view.name) || isInterpreterName(view.name);
    if (
      argumentsMatter &&
      view.words.some((w, i) => i > 0 && mayBecomeOptions(w) && !isOptionValue(view, i))
    ) {
      this.add(
        'computed-arguments',
        `an argument of ${view.name} is computed when the command runs (an expansion or a glob that could match an option), so what ${view.name} will do cannot be checked`,
        shown,
      );
    } else if (how.fedArguments && argumentsMatter) {
      this.add(
        'computed-arguments',
        `${how.fedArguments} adds arguments to ${view.name} when it runs, so what ${view.name} will do cannot be checked`,
        shown,
      );
    }
    if (
      how.fedArguments &&
      (SHELLS.has(view.name) || isInterpreterName(view.name) || SCRIPT_RUNNERS.has(view.name))
    ) {
      this.add(
        'shell-fed-by-xargs',
        `${how.fedArguments} feeds its input to ${view.name}, so the input becomes code`,
        shown,
      );
    }
    this.checkNameTakingBuiltin(view, shown);
    if (view.name === 'cd' || view.name === 'pushd') this.enterFolder(view, shown);
    views.push(...this.runsWhat(view, depth, shown));
    return views;
  }

  private checkWrites(view: CommandView, shown: string): void {
    for (const word of possiblyWrittenWords(view) ?? []) {
      const paths = path.posix.isAbsolute(word.text)
        ? [word.text]
        : this.bases.map((base) => (base === '' ? word.text : path.posix.join(base, word.text)));
      for (const p of paths) this.mentions.push({ path: p, command: shown, glob: word.glob });
    }
    for (const r of view.redirects) {
      if (r.target.isStatic) this.mentions.push({ path: r.target.text, command: shown, glob: r.target.glob });
    }
    if (!isKnownReadOnly(view)) {
      const candidates = possiblyWrittenWords(view);
      if (candidates === undefined) {
        this.add(
          'computed-write-target',
          `${view.name} has more words than the checker follows, so one of them may name a protected path it writes`,
          shown,
        );
      } else for (const candidate of candidates) this.addWrite(candidate.text, shown, candidate.glob);
    }
    for (const target of writeTargets(view)) {
      if (!target.isStatic || mayBecomeOptions(target)) {
        this.add(
          'computed-write-target',
          `${view.name || 'a redirection'} writes to a path computed when the command runs (${target.raw}), which may be protected`,
          shown,
        );
      } else {
        this.addWrite(target.text, shown, target.glob);
      }
    }
  }

  /** A write of `text`, once for every folder a relative path may be relative to. */
  private addWrite(text: string, command: string, glob: boolean): void {
    const paths = path.posix.isAbsolute(text)
      ? [text]
      : this.bases.map((base) => (base === '' ? text : path.posix.join(base, text)));
    for (const p of paths) this.writes.push({ path: p, command, glob });
  }

  /**
   * `cd DIR` / `pushd DIR` (bare `cd`: the home folder): later relative writes may land there, and entering
   * a protected folder counts as writing there. A computed folder is reported elsewhere (computed-arguments).
   */
  private enterFolder(view: CommandView, shown: string): void {
    const last = view.words.length > 1 ? view.words[view.words.length - 1]! : undefined;
    if (last !== undefined && !last.isStatic) return;
    const target = last === undefined ? this.homeDir : last.text;
    this.addWrite(target, shown, last?.glob ?? false);
    const entered = path.posix.isAbsolute(target)
      ? [target]
      : this.bases.map((base) => (base === '' ? target : path.posix.join(base, target)));
    for (const folder of entered) if (!this.bases.includes(folder)) this.bases.push(folder);
    if (this.bases.length > MAX_FOLDERS) {
      this.add(
        'computed-arguments',
        `more than ${MAX_FOLDERS} folders entered with cd; where later writes land is not checked`,
        shown,
      );
      this.bases.splice(MAX_FOLDERS);
    }
  }

  private checkNameTakingBuiltin(view: CommandView, shown: string): void {
    const { name, args } = view;
    if (name === 'mapfile' || name === 'readarray') {
      if (args.some((a) => /^-[A-Za-z]*C/.test(a))) {
        this.add('mapfile-callback', `${name} -C runs a callback command for the lines it reads`, shown);
      }
    }
    if (name === 'hash' && args.some((a) => /^-[A-Za-z]*p/.test(a))) {
      this.add('hash-path', 'hash -p makes a command name run another program', shown);
    }
    if (name === 'enable')
      this.add('enable-builtin', 'enable can load a shared library into bash as a builtin', shown);
    if (name === 'alias' && args.some((a) => a.includes('='))) {
      this.add('alias-definition', 'an alias makes a later command name run something else', shown);
    }
    if (name === 'shopt' && args.some((a) => a === 'expand_aliases' || a === 'extdebug')) {
      this.add('alias-definition', `shopt ${args.join(' ')} changes what later command names run`, shown);
    }
    if (!NAME_TAKING_BUILTINS.has(name)) return;
    const nameArgs = name === 'test' || name === '[' ? args.filter((_a, i) => args[i - 1] === '-v') : args;
    if (name === 'let' || nameArgs.some((a) => a.includes('[') || a.includes(DYNAMIC))) {
      if (name === 'let' && !args.some((a) => a.includes('[') || a.includes(DYNAMIC))) {
        for (const arg of args)
          for (const m of arg.matchAll(/[A-Za-z_][A-Za-z0-9_]*/g)) this.taintedUse(m[0], shown);
        return;
      }
      this.add(
        'subscript-evaluated',
        `${name} ${nameArgs.join(' ')}: a subscript or a computed name is evaluated as code`,
        shown,
      );
    }
    if (name === 'printf' && args.some((a, i) => a === '-v' && /[[\0]/.test(args[i + 1] ?? ''))) {
      this.add('subscript-evaluated', 'printf -v with a subscript evaluates it as code', shown);
    }
  }

  /** The commands `view` runs on its own behalf. */
  private runsWhat(view: CommandView, depth: number, shown: string): CommandView[] {
    const { name, args, words } = view;
    const out: CommandView[] = [];
    const runScript = (source: string | undefined, what: string) => {
      if (source === undefined) return;
      if (source.includes(DYNAMIC)) {
        this.add(
          'computed-script',
          `${what} is computed when the command runs, so it cannot be checked`,
          shown,
        );
        return;
      }
      out.push(...this.script(source, depth + 1));
    };

    if (name === 'eval') {
      this.add('eval', 'eval runs its arguments as a new command line', shown);
      runScript((args[0] === '--' ? args.slice(1) : args).join(' '), 'the eval text');
      return out;
    }
    if (name === 'trap') {
      const [action] = positionals(args);
      if (action !== undefined && action !== '-' && !/^-/.test(action) && positionals(args).length > 1) {
        this.add('trap', 'trap runs its text as a command later, when a signal arrives', shown);
        runScript(action, 'the trap action');
      }
      return out;
    }
    if (name === 'source' || name === '.') {
      const file = words[1];
      if (file && readsFromStdinOrPipe(file)) {
        this.add(
          'script-from-stdin',
          `${name} reads a script from stdin or a process substitution (${file.raw}), which cannot be checked`,
          shown,
        );
      }
      return out;
    }
    if (SHELLS.has(name) || name === 'su' || name === 'script' || name === 'sg') {
      const source = commandOption(args);
      if (source !== undefined) {
        runScript(source, `the ${name} -c script`);
        return out;
      }
      if (!SHELLS.has(name)) return out;
      const file = words.slice(1).find((_w, i) => !args[i]!.startsWith('-') || args[i] === '-');
      if (file && readsFromStdinOrPipe(file)) {
        this.add(
          'script-from-stdin',
          `${name} runs a script from stdin or a process substitution (${file.raw}), which cannot be checked`,
          shown,
        );
      }
      if (interpreterReadsStdin(view)) {
        for (const r of view.redirects) {
          if (!STDIN_REDIRECTS.has(r.op)) continue;
          this.add('script-from-stdin', `${name} reads its script from a redirection (${r.op})`, shown);
          if (r.op === '<<<') runScript(r.target.text, 'the here-string');
          else if (r.heredoc) runScript(r.heredoc.body, 'the here-document');
        }
      }
      return out;
    }
    if (name === 'runuser' || name === 'flock') {
      // `runuser USER -c CMD`, `flock FILE -c CMD`: the -c may follow the operand.
      const source = commandOption(args);
      if (source !== undefined) {
        runScript(source, `the ${name} -c script`);
        return out;
      }
    }
    if (name === 'runuser') {
      const unwrapped = unwrap(name, args);
      if (unwrapped.kind === 'script') runScript(unwrapped.source, 'the runuser -c script');
      else if (unwrapped.kind === 'argv' && args.some((a) => a === '-u' || a.startsWith('--user'))) {
        out.push(...this.inner(view, unwrapped.argv, depth, {}));
      }
      return out;
    }
    if (name === 'find') {
      for (let i = 0; i < args.length; i++) {
        if (!['-exec', '-execdir', '-ok', '-okdir'].includes(args[i]!)) continue;
        const start = i + 1;
        for (i++; i < args.length && args[i] !== ';' && args[i] !== '+'; i++);
        const innerWords = words
          .slice(start + 1, i + 1)
          .map((w) => (w.text.includes('{}') ? { ...w, isStatic: false, text: DYNAMIC } : w));
        if (innerWords.length > 0) {
          out.push(
            ...this.inspectView(makeView(innerWords, view.redirects, view.substituted), depth + 1, {
              fedArguments: 'find -exec',
            }),
          );
        }
      }
      return out;
    }
    if (name === 'parallel') {
      this.add(
        'shell-fed-by-xargs',
        'parallel runs its command through a shell with its input substituted in',
        shown,
      );
      // `parallel CMD ::: args` runs CMD; `parallel ::: 'cmd1' 'cmd2'` runs each argument.
      const rest = skipOptions(args, ['-j', '--jobs', '-S', '-N', '-n', '-P', '-I', '-d', '-a', '--colsep']);
      const separator = rest.findIndex((a) => a.startsWith(':::'));
      const commandWords = separator === -1 ? rest : rest.slice(0, separator);
      if (commandWords.length > 0) runScript(commandWords.join(' '), 'the parallel command');
      else
        for (const a of rest.slice(separator + 1))
          if (!a.startsWith(':::')) runScript(a, 'a parallel argument');
      return out;
    }
    if (name === 'watch') {
      runScript(
        skipOptions(args, ['-n', '--interval', '-d', '-q', '--equexit']).join(' '),
        'the watch command',
      );
      return out;
    }
    if (name === 'env') {
      for (const a of args) {
        const variable = /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(a)?.[1];
        if (variable && CODE_VARIABLES.test(variable)) {
          this.add(
            'code-variable',
            `setting ${variable} makes programs run code the command line does not show`,
            shown,
          );
        }
      }
    }
    if (WRAPPERS[name]) {
      const unwrapped = unwrap(name, args);
      if (unwrapped.kind === 'unknown') {
        this.add('unknown-wrapper-option', `${unwrapped.why}, so the command it runs cannot be found`, shown);
      } else if (unwrapped.kind === 'script') {
        runScript(unwrapped.source, `the ${name} script`);
      } else if (unwrapped.kind === 'argv') {
        const fed = WRAPPERS[name]!.appendsArguments ? name : undefined;
        out.push(...this.inner(view, unwrapped.argv, depth, fed ? { fedArguments: fed } : {}));
      }
      return out;
    }
    if (!DATA_ONLY.has(name) && !isInterpreterName(name)) {
      // A wrapper the table does not know (`faketime now rm -rf x`, `ssh host rm -rf /`): try each
      // later word that names a command (a bare name or an absolute path) as the command it may run.
      for (let i = 1; i < args.length + 1; i++) {
        const candidate = words[i];
        if (!candidate?.isStatic || !TRIGGERS.has(baseName(candidate.text))) continue;
        if (candidate.text.includes('/') && !candidate.text.startsWith('/')) continue;
        const probe = new Analyzer(this.grammar, this.homeDir);
        probe.inspectView(makeView(words.slice(i), view.redirects, view.substituted), depth + 1, {});
        if (probe.findings.length > 0) {
          this.add(
            'unknown-wrapper',
            `${name} is not in the wrapper table and may run ${baseName(candidate.text)} with the words after it`,
            shown,
          );
          this.findings.push(...probe.findings);
          break;
        }
      }
    }
    return out;
  }

  private inner(
    view: CommandView,
    argv: string[],
    depth: number,
    how: { fedArguments?: string },
  ): CommandView[] {
    // The wrapped command's words are the tail of the wrapper's words.
    const words = view.words.slice(view.words.length - argv.length);
    return this.inspectView(makeView(words, view.redirects, view.substituted), depth + 1, how);
  }
}

function makeView(
  words: ShellWord[],
  redirects: readonly ShellRedirect[],
  substituted: readonly CommandView[],
): CommandView {
  return {
    name: baseName(words[0]?.text ?? ''),
    args: words.slice(1).map((w) => w.text),
    words,
    redirects,
    substituted,
  };
}

/** `/dev/stdin`, `/dev/fd/N`, `/proc/self/fd/0`, `-`, a process substitution or a computed path. */
function readsFromStdinOrPipe(word: ShellWord): boolean {
  if (!word.isStatic) return true;
  return /^(?:-|\/dev\/stdin|\/dev\/fd\/\d+|\/proc\/[^/]+\/fd\/\d+)$/.test(word.text.replace(/\/+/g, '/'));
}

/** The argument after a `-c`-style option (`-c`, `-xc`, `--command`, `--command=...`), `--` skipped. */
function commandOption(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') return undefined;
    if (arg.startsWith('--command=')) return arg.slice('--command='.length);
    if (/^-[A-Za-z]*c[A-Za-z]*$/.test(arg) || arg === '--command') {
      return args[i + 1] === '--' ? args[i + 2] : args[i + 1];
    }
  }
  return undefined;
}

/** Options whose value cannot change what the command does, per command (`git commit -m "$msg"`). */
const HARMLESS_VALUE_OPTIONS: Readonly<Record<string, readonly string[]>> = {
  git: ['-m', '--message', '-F', '--file', '--author', '--date', '--format', '--pretty', '--grep', '-C'],
};

/**
 * True when computed word `index` of `view` is only the value of an option: `--name=$x` (the option
 * itself is literal) or the word after an option listed in HARMLESS_VALUE_OPTIONS.
 */
function isOptionValue(view: CommandView, index: number): boolean {
  const word = view.words[index]!;
  if (/^--?[A-Za-z0-9][A-Za-z0-9-]*=/.test(word.text) && !word.glob) return true;
  const previous = view.words[index - 1];
  return previous?.isStatic === true && (HARMLESS_VALUE_OPTIONS[view.name] ?? []).includes(previous.text);
}

function skipOptions(args: readonly string[], withValue: readonly string[]): string[] {
  let i = 0;
  while (i < args.length && args[i]!.startsWith('-') && args[i] !== '-') {
    if (args[i] === '--') return args.slice(i + 1);
    if (withValue.includes(args[i]!)) i++;
    i++;
  }
  return args.slice(i);
}

function baseName(program: string): string {
  const slash = program.lastIndexOf('/');
  return slash === -1 ? program : program.slice(slash + 1);
}

function render(view: CommandView): string {
  const words = view.words.map((w) => w.raw);
  const redirects = view.redirects.filter((r) => !r.heredoc).map((r) => `${r.op} ${r.target.raw}`);
  return [...words, ...redirects].filter((part) => part !== '').join(' ');
}

function dedupe(findings: DestructiveFinding[]): DestructiveFinding[] {
  const seen = new Set<string>();
  return findings.filter((f) => {
    const key = `${f.id}\u0000${f.command}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
