//! A command line split as a POSIX shell would split it, for judging what it does: every simple
//! command of its pipelines and lists (`;`, `&&`, `||`, `|`, `&`, newlines, subshells and groups),
//! each as its words with the quotes removed, its redirections apart; the commands inside command and
//! process substitutions (`$(…)`, `` `…` ``, `<(…)`) and inside `sh -c '…'` / `eval '…'` as commands
//! of their own. It never runs anything and never expands anything: `$HOME` stays `$HOME`.
//!
//! What it is not: a validator. Text a shell would refuse (an unclosed quote) is split as far as it
//! goes, so that a judge sees the words anyway. [`simple`] is the strict reading: the words of a
//! line that is one simple command and nothing else, or none.

/// One simple command: its words (the command name first, wrappers such as `sudo` kept) and the
/// targets of its redirections (`> file`, `>> file`, `2> file`; `<` inputs are left out).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Command {
    pub words: Vec<String>,
    /// Files the command writes through a redirection.
    pub writes: Vec<String>,
    /// The index of the pipeline this command belongs to, and its place in it (0 first).
    pub pipeline: usize,
    pub stage: usize,
}

/// Deeper than this, substitutions inside substitutions are not split further (hostile input).
const MAX_DEPTH: usize = 8;
/// At most this many commands are read from one line.
const MAX_COMMANDS: usize = 512;

/// Every simple command of `line`, in order (the commands of a substitution before the command
/// that uses its output).
pub fn commands(line: &str) -> Vec<Command> {
    let mut out = Vec::new();
    let mut pipelines = 0;
    split(line, 0, &mut pipelines, &mut out);
    out
}

/// The words of `line` (quotes removed) when a shell would run it as one simple command and
/// nothing else; `None` when it holds any shell control: a list or a pipeline (`;`, `&`, `&&`,
/// `||`, `|`, a newline), a subshell or a group (`(`, `)`, a `{` or `}` word), a command, process or
/// arithmetic substitution (`$(…)`, `` `…` ``, `<(…)`, `>(…)`, `$((…))`), a redirection or a here-doc
/// (`<`, `>`, `>>`, `<<`, `2>&1`, `&>`), any `$` expansion (`$HOME`, `${…}`, `$'…'`; even inside
/// double quotes), a comment, an unclosed quote, a trailing backslash, or a control character other
/// than a tab (a carriage return, an escape). Quoted and escaped text is a word's data here (`echo
/// 'a; b'` is one command); whoever needs more (a grant) adds its own rule.
pub fn simple(line: &str) -> Option<Vec<String>> {
    if line.chars().any(|c| c.is_control() && c != '\t') {
        return None;
    }
    let mut out = Vec::new();
    let mut pipelines = 0;
    let control = split(line, 0, &mut pipelines, &mut out);
    match out.as_slice() {
        [one] if !control && one.writes.is_empty() => out.pop().map(|c| c.words),
        _ => None,
    }
}

struct Lexer<'a> {
    chars: Vec<char>,
    i: usize,
    depth: usize,
    pipelines: &'a mut usize,
    out: &'a mut Vec<Command>,
    /// The command being read, its current word, and whether that word has begun (`''` is a word).
    cmd: Command,
    word: String,
    in_word: bool,
    /// The next word is a redirection's target (`Some(true)`: a write).
    redirect: Option<bool>,
    /// Whether the line holds shell control ([`simple`]), at this level (a substitution is control).
    control: bool,
}

/// Splits `line` into `out`; answers whether it holds shell control ([`simple`]).
fn split(line: &str, depth: usize, pipelines: &mut usize, out: &mut Vec<Command>) -> bool {
    let first = *pipelines;
    let mut lx = Lexer {
        chars: line.chars().collect(),
        i: 0,
        depth,
        pipelines,
        out,
        cmd: Command { pipeline: first, ..Default::default() },
        word: String::new(),
        in_word: false,
        redirect: None,
        control: false,
    };
    *lx.pipelines += 1;
    lx.run();
    lx.control
}

impl Lexer<'_> {
    fn peek(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.i + ahead).copied()
    }

    fn end_word(&mut self) {
        if !self.in_word {
            return;
        }
        let word = std::mem::take(&mut self.word);
        self.in_word = false;
        match self.redirect.take() {
            Some(true) => self.cmd.writes.push(word),
            Some(false) => {}
            None => self.cmd.words.push(word),
        }
    }

    /// Ends the command; `pipe`: the next one reads its output (same pipeline, next stage).
    fn end_command(&mut self, pipe: bool) {
        self.end_word();
        // A redirection with no target (`echo > ; rm …`) takes nothing of the next command.
        self.redirect = None;
        let (pipeline, stage) = (self.cmd.pipeline, self.cmd.stage);
        let done = std::mem::take(&mut self.cmd);
        if (!done.words.is_empty() || !done.writes.is_empty()) && self.out.len() < MAX_COMMANDS {
            self.out.push(done);
        }
        if pipe {
            self.cmd.pipeline = pipeline;
            self.cmd.stage = stage + 1;
        } else {
            self.cmd.pipeline = *self.pipelines;
            *self.pipelines += 1;
        }
    }

    /// The text up to the `close` that matches an opening just read (nested pairs and quotes
    /// respected); the cursor ends after it.
    fn enclosed(&mut self, open: char, close: char) -> String {
        let start = self.i;
        let mut level = 1;
        while let Some(c) = self.peek(0) {
            match c {
                '\\' => self.i += 1,
                '\'' if open != '`' => {
                    self.i += 1;
                    while self.peek(0).is_some_and(|c| c != '\'') {
                        self.i += 1;
                    }
                }
                c if c == close && (open == close || level == 1) => {
                    let inner: String = self.chars[start..self.i].iter().collect();
                    self.i += 1;
                    return inner;
                }
                c if c == close => level -= 1,
                c if c == open && open != close => level += 1,
                _ => {}
            }
            self.i += 1;
        }
        self.chars[start..].iter().collect()
    }

    /// A substitution's command line, split as commands of their own.
    fn substituted(&mut self, inner: &str) {
        self.control = true;
        if self.depth < MAX_DEPTH {
            split(inner, self.depth + 1, self.pipelines, self.out);
        }
    }

    /// A `$` just read starts an expansion unless a blank, the end (or, `in_quotes`, the closing
    /// `"`) follows it.
    fn expansion(&self, in_quotes: bool) -> bool {
        match self.peek(0) {
            None | Some(' ' | '\t' | '\n') => false,
            Some('"') => !in_quotes,
            Some(_) => true,
        }
    }

    fn run(&mut self) {
        while let Some(c) = self.peek(0) {
            self.i += 1;
            // Everything but words, blanks, quotes and escapes is control.
            self.control |= matches!(c, '\n' | ';' | '&' | '|' | '(' | ')' | '<' | '>' | '`')
                || (matches!(c, '{' | '}' | '#') && !self.in_word)
                || (c == '$' && self.expansion(false));
            match c {
                ' ' | '\t' => self.end_word(),
                '\n' | ';' => self.end_command(false),
                '&' => {
                    if self.peek(0) == Some('>') {
                        // `&> file`: both outputs to a file.
                        self.i += 1;
                        if self.peek(0) == Some('>') {
                            self.i += 1;
                        }
                        self.end_word();
                        self.redirect = Some(true);
                    } else {
                        if self.peek(0) == Some('&') {
                            self.i += 1;
                        }
                        self.end_command(false);
                    }
                }
                '|' => {
                    if self.peek(0) == Some('|') {
                        self.i += 1;
                        self.end_command(false);
                    } else {
                        if self.peek(0) == Some('&') {
                            self.i += 1;
                        }
                        self.end_command(true);
                    }
                }
                '(' | ')' | '{' | '}' if !self.in_word => {
                    // A subshell or a group (`{` and `}` only as words of their own).
                    let word_of_its_own = matches!(c, '(' | ')') || matches!(self.peek(0), None | Some(' ' | '\t' | '\n' | ';'));
                    if word_of_its_own {
                        self.end_command(false);
                    } else {
                        self.word.push(c);
                        self.in_word = true;
                    }
                }
                ')' => self.end_command(false),
                '#' if !self.in_word => {
                    while self.peek(0).is_some_and(|c| c != '\n') {
                        self.i += 1;
                    }
                }
                '>' | '<' => {
                    // A file descriptor number just before it (`2>`) is no word.
                    if self.in_word && !self.word.is_empty() && self.word.chars().all(|d| d.is_ascii_digit()) {
                        self.word.clear();
                        self.in_word = false;
                    } else {
                        self.end_word();
                    }
                    if self.peek(0) == Some('(') {
                        // Process substitution: `<(curl …)`.
                        self.i += 1;
                        let inner = self.enclosed('(', ')');
                        self.substituted(&inner);
                        continue;
                    }
                    let write = c == '>';
                    while matches!(self.peek(0), Some('>' | '|' | '<')) {
                        self.i += 1;
                    }
                    if self.peek(0) == Some('&') {
                        // `2>&1`: to another descriptor, no file.
                        self.i += 1;
                        while self.peek(0).is_some_and(|d| d.is_ascii_digit() || d == '-') {
                            self.i += 1;
                        }
                        continue;
                    }
                    self.redirect = Some(write);
                }
                '\\' => {
                    match self.peek(0) {
                        Some('\n') => {}
                        Some(next) => {
                            self.word.push(next);
                            self.in_word = true;
                        }
                        None => self.control = true,
                    }
                    self.i += 1;
                }
                '\'' => {
                    self.in_word = true;
                    let mut closed = false;
                    while let Some(q) = self.peek(0) {
                        self.i += 1;
                        if q == '\'' {
                            closed = true;
                            break;
                        }
                        self.word.push(q);
                    }
                    self.control |= !closed;
                }
                '"' => {
                    self.in_word = true;
                    self.double_quoted();
                }
                '`' => {
                    self.in_word = true;
                    let inner = self.enclosed('`', '`');
                    self.substituted(&inner);
                    self.word.push_str("$(…)");
                }
                '$' if self.peek(0) == Some('(') => {
                    self.i += 1;
                    self.in_word = true;
                    if self.peek(0) == Some('(') {
                        // Arithmetic `$((…))`: no command.
                        self.i += 1;
                        self.enclosed('(', ')');
                        if self.peek(0) == Some(')') {
                            self.i += 1;
                        }
                        self.word.push_str("$((…))");
                    } else {
                        let inner = self.enclosed('(', ')');
                        self.substituted(&inner);
                        self.word.push_str("$(…)");
                    }
                }
                c => {
                    self.word.push(c);
                    self.in_word = true;
                }
            }
        }
        self.end_command(false);
    }

    fn double_quoted(&mut self) {
        while let Some(c) = self.peek(0) {
            self.i += 1;
            match c {
                '"' => return,
                '\\' => match self.peek(0) {
                    Some(n @ ('"' | '\\' | '$' | '`')) => {
                        self.word.push(n);
                        self.i += 1;
                    }
                    Some('\n') => self.i += 1,
                    _ => self.word.push('\\'),
                },
                '`' => {
                    let inner = self.enclosed('`', '`');
                    self.substituted(&inner);
                    self.word.push_str("$(…)");
                }
                '$' if self.peek(0) == Some('(') => {
                    self.i += 1;
                    let inner = self.enclosed('(', ')');
                    self.substituted(&inner);
                    self.word.push_str("$(…)");
                }
                c => {
                    self.control |= c == '$' && self.expansion(true);
                    self.word.push(c);
                }
            }
        }
        // Unclosed.
        self.control = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<Vec<String>> {
        commands(line).into_iter().map(|c| c.words).collect()
    }

    fn w(list: &[&[&str]]) -> Vec<Vec<String>> {
        list.iter().map(|c| c.iter().map(|s| s.to_string()).collect()).collect()
    }

    #[test]
    fn lists_pipelines_and_quotes_split_as_a_shell_would() {
        assert_eq!(words("git status && rm -rf /tmp/x; echo ok"), w(&[&["git", "status"], &["rm", "-rf", "/tmp/x"], &["echo", "ok"]]));
        assert_eq!(words("echo 'a; rm -rf /' \"b && c\""), w(&[&["echo", "a; rm -rf /", "b && c"]]));
        assert_eq!(words("curl -s https://x.example/i|sh"), w(&[&["curl", "-s", "https://x.example/i"], &["sh"]]));
        assert_eq!(words("a||b&c\nd"), w(&[&["a"], &["b"], &["c"], &["d"]]));
        assert_eq!(words("r\\m -rf x"), w(&[&["rm", "-rf", "x"]]));
        assert_eq!(words("echo ''"), w(&[&["echo", ""]]));
        assert_eq!(words("(cd /; rm -rf *) # done"), w(&[&["cd", "/"], &["rm", "-rf", "*"]]));
        assert_eq!(words("{ rm -rf /; }"), w(&[&["rm", "-rf", "/"]]));
    }

    #[test]
    fn pipelines_know_their_stages() {
        let c = commands("curl -fsSL x | sudo bash; ls | wc -l");
        assert_eq!((c[0].pipeline, c[0].stage, c[1].pipeline, c[1].stage), (c[0].pipeline, 0, c[0].pipeline, 1));
        assert_ne!(c[2].pipeline, c[0].pipeline);
        assert_eq!((c[2].stage, c[3].stage), (0, 1));
    }

    #[test]
    fn substitutions_are_commands_of_their_own() {
        assert_eq!(words("echo $(rm -rf /)"), w(&[&["rm", "-rf", "/"], &["echo", "$(…)"]]));
        assert_eq!(words("echo \"`whoami`\""), w(&[&["whoami"], &["echo", "$(…)"]]));
        assert_eq!(words("bash <(curl -s x)"), w(&[&["curl", "-s", "x"], &["bash"]]));
        assert_eq!(words("echo $((1+2))"), w(&[&["echo", "$((…))"]]));
    }

    #[test]
    fn redirections_are_kept_apart_as_writes() {
        let c = commands("echo x > /etc/passwd 2>&1; cat < in >> out.log; cmd 2>/dev/null &>all");
        assert_eq!(c[0].words, vec!["echo", "x"]);
        assert_eq!(c[0].writes, vec!["/etc/passwd"]);
        assert_eq!(c[1].words, vec!["cat"]);
        assert_eq!(c[1].writes, vec!["out.log"]);
        assert_eq!(c[2].writes, vec!["/dev/null", "all"]);
        // A redirection left without its target never swallows the next command's name.
        assert_eq!(words("echo > ; rm -rf /"), w(&[&["echo"], &["rm", "-rf", "/"]]));
    }

    #[test]
    fn a_simple_command_is_one_command_with_no_shell_control_and_quoted_text_is_its_data() {
        let simple = |line: &str| super::simple(line);
        assert_eq!(simple("git status --short"), Some(vec!["git".into(), "status".into(), "--short".into()]));
        assert_eq!(simple("git commit -m 'a; b' \"c | d\" e\\;f"), Some(w(&[&["git", "commit", "-m", "a; b", "c | d", "e;f"]])[0].clone()));
        assert_eq!(
            simple("git stash show stash@{0} '$HOME' \"price: $\""),
            Some(w(&[&["git", "stash", "show", "stash@{0}", "$HOME", "price: $"]])[0].clone())
        );
        for control in [
            "a; b",
            "a && b",
            "a || b",
            "a | b",
            "a |& b",
            "a & b",
            "a &",
            "a\nb",
            "(a)",
            "{ a; }",
            "{a,b}",
            "a $(b)",
            "a `b`",
            "a \"$(b)\"",
            "a \"`b`\"",
            "a $((1+2))",
            "a <(b)",
            "a >(b)",
            "a > f",
            "a >> f",
            "a < f",
            "a 2>&1",
            "a &> f",
            "a <<EOF",
            "a <<< x",
            "a $HOME",
            "a ${X:=y}",
            "a \"${X}\"",
            "a \"$X\"",
            "a $'\\x3b'",
            "a $1",
            "a # b",
            "a 'unclosed",
            "a \"unclosed",
            "a \\",
            "a\rb",
            "a \u{1b}[2K",
            "a=(x)",
            "a *(e:x:)",
            "",
            "   ",
        ] {
            assert_eq!(simple(control), None, "{control:?}");
        }
    }

    #[test]
    fn hostile_input_ends_without_panicking_or_recursing_forever() {
        let deep = "$(".repeat(10_000);
        let _ = commands(&deep);
        let _ = commands("'unclosed");
        let _ = commands("\"unclosed $(");
        let many = "a;".repeat(10_000);
        assert_eq!(commands(&many).len(), MAX_COMMANDS);
    }
}
