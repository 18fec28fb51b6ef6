//! The tokens of the litmus C dialect, produced on demand.
//!
//! The lexer skips whitespace, `//` and `/* */` comments everywhere, and
//! herd's `(* ... *)` comments and `"..."` doc strings between top-level
//! items (that is, outside every bracket: inside code, `(*p)` is a
//! parenthesised dereference). It never fails outright: a malformed input
//! produces a [`TokenKind::Error`] token located at the offending character
//! (or at the opening of an unterminated comment or string), after which
//! the same error token is returned for ever.

use super::ast::Pos;

/// What a token is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TokenKind {
    /// An identifier or keyword: `[A-Za-z_][A-Za-z0-9_]*`.
    Ident(String),
    /// An unsigned integer literal, decimal or `0x` hexadecimal (signs are
    /// separate `-` tokens).
    Int(u64),
    /// `(`.
    LParen,
    /// `)`.
    RParen,
    /// `{`.
    LBrace,
    /// `}`.
    RBrace,
    /// `[`.
    LBracket,
    /// `]`.
    RBracket,
    /// `;`.
    Semi,
    /// `,`.
    Comma,
    /// `:`.
    Colon,
    /// `@`.
    At,
    /// `=`.
    Assign,
    /// `==`.
    EqEq,
    /// `!=`.
    NotEq,
    /// `<`.
    Lt,
    /// `<=`.
    Le,
    /// `>`.
    Gt,
    /// `>=`.
    Ge,
    /// `<<`.
    Shl,
    /// `>>`.
    Shr,
    /// `+`.
    Plus,
    /// `-`.
    Minus,
    /// `*`.
    Star,
    /// `/`.
    Slash,
    /// `%`.
    Percent,
    /// `&`.
    Amp,
    /// `&&`.
    AmpAmp,
    /// `|`.
    Pipe,
    /// `||`.
    PipePipe,
    /// `^`.
    Caret,
    /// `!`.
    Bang,
    /// `~`.
    Tilde,
    /// `/\` (conjunction in conditions).
    Conj,
    /// `\/` (disjunction in conditions).
    Disj,
    /// The end of the input.
    Eof,
    /// A lexical error; the string is the whole message.
    Error(String),
}

impl TokenKind {
    /// How the token reads in an error message: `` `foo` ``, `` `;` ``,
    /// `end of input`.
    pub fn describe(&self) -> String {
        match self {
            TokenKind::Ident(s) => {
                if s.chars().count() > 40 {
                    let short: String = s.chars().take(40).collect();
                    format!("`{short}...`")
                } else {
                    format!("`{s}`")
                }
            }
            TokenKind::Int(v) => format!("`{v}`"),
            TokenKind::Eof => "end of input".to_string(),
            TokenKind::Error(m) => m.clone(),
            other => format!("`{}`", other.symbol()),
        }
    }

    /// The spelling of a punctuation token (empty for the others).
    pub fn symbol(&self) -> &'static str {
        match self {
            TokenKind::LParen => "(",
            TokenKind::RParen => ")",
            TokenKind::LBrace => "{",
            TokenKind::RBrace => "}",
            TokenKind::LBracket => "[",
            TokenKind::RBracket => "]",
            TokenKind::Semi => ";",
            TokenKind::Comma => ",",
            TokenKind::Colon => ":",
            TokenKind::At => "@",
            TokenKind::Assign => "=",
            TokenKind::EqEq => "==",
            TokenKind::NotEq => "!=",
            TokenKind::Lt => "<",
            TokenKind::Le => "<=",
            TokenKind::Gt => ">",
            TokenKind::Ge => ">=",
            TokenKind::Shl => "<<",
            TokenKind::Shr => ">>",
            TokenKind::Plus => "+",
            TokenKind::Minus => "-",
            TokenKind::Star => "*",
            TokenKind::Slash => "/",
            TokenKind::Percent => "%",
            TokenKind::Amp => "&",
            TokenKind::AmpAmp => "&&",
            TokenKind::Pipe => "|",
            TokenKind::PipePipe => "||",
            TokenKind::Caret => "^",
            TokenKind::Bang => "!",
            TokenKind::Tilde => "~",
            TokenKind::Conj => "/\\",
            TokenKind::Disj => "\\/",
            TokenKind::Ident(_) | TokenKind::Int(_) | TokenKind::Eof | TokenKind::Error(_) => "",
        }
    }
}

/// A token and where it starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    /// What it is.
    pub kind: TokenKind,
    /// Where its first character is.
    pub pos: Pos,
}

/// An on-demand tokenizer over a whole source text.
#[derive(Clone, Debug)]
pub struct Lexer {
    chars: Vec<char>,
    at: usize,
    line: u32,
    col: u32,
    /// Open `(`, `[` and `{` not yet closed (herd comments and doc strings
    /// are recognised only at depth 0).
    depth: u32,
    /// The error token, once one was produced.
    failed: Option<Token>,
}

impl Lexer {
    /// A lexer at the start of `src` (a leading byte-order mark is skipped).
    pub fn new(src: &str) -> Lexer {
        let src = src.strip_prefix('\u{feff}').unwrap_or(src);
        Lexer {
            chars: src.chars().collect(),
            at: 0,
            line: 1,
            col: 1,
            depth: 0,
            failed: None,
        }
    }

    /// The position of the next character.
    pub fn pos(&self) -> Pos {
        Pos {
            line: self.line,
            col: self.col,
        }
    }

    /// Consumes the raw text up to (not including) the next newline and
    /// returns it; used for the test name in the header line.
    pub fn rest_of_line(&mut self) -> String {
        let mut s = String::new();
        while let Some(c) = self.peek(0) {
            if c == '\n' {
                break;
            }
            s.push(c);
            self.advance();
        }
        s
    }

    /// Skips herd's information lines between a C test's name and its
    /// init block (`Cycle=...`, `Relax=`, `Generator=diy7 ...`, `Com=...`,
    /// `Variant=Quad`: a name, `=`, the rest of the line), with the
    /// comments and doc strings around them. herd reads them as metadata;
    /// none changes what the test means to scopecheck. An unterminated
    /// comment or string is left for [`Self::next_token`] to report.
    pub fn skip_info_lines(&mut self) {
        loop {
            if self.skip_trivia().is_some() {
                return;
            }
            let mut n = 0;
            while self.peek(n).is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
                n += 1;
            }
            if n == 0 || self.peek(0).is_some_and(|c| c.is_ascii_digit()) {
                return;
            }
            while self.peek(n).is_some_and(|c| c == ' ' || c == '\t') {
                n += 1;
            }
            if self.peek(n) != Some('=') || self.peek(n + 1) == Some('=') {
                return;
            }
            self.rest_of_line();
        }
    }

    fn peek(&self, n: usize) -> Option<char> {
        self.chars.get(self.at + n).copied()
    }

    fn advance(&mut self) {
        if let Some(&c) = self.chars.get(self.at) {
            self.at += 1;
            if c == '\n' {
                self.line = self.line.saturating_add(1);
                self.col = 1;
            } else {
                self.col = self.col.saturating_add(1);
            }
        }
    }

    fn fail(&mut self, pos: Pos, message: String) -> Token {
        let t = Token {
            kind: TokenKind::Error(message),
            pos,
        };
        self.failed = Some(t.clone());
        t
    }

    /// Skips whitespace and comments; returns an error token for an
    /// unterminated comment or doc string.
    fn skip_trivia(&mut self) -> Option<Token> {
        loop {
            let c = self.peek(0)?;
            let next = self.peek(1);
            if c.is_whitespace() {
                self.advance();
            } else if c == '/' && next == Some('/') {
                while self.peek(0).is_some_and(|c| c != '\n') {
                    self.advance();
                }
            } else if c == '/' && next == Some('*') {
                let start = self.pos();
                self.advance();
                self.advance();
                if !self.skip_until('*', '/') {
                    return Some(self.fail(start, "unterminated comment `/*`".to_string()));
                }
            } else if c == '(' && next == Some('*') && self.depth == 0 {
                let start = self.pos();
                self.advance();
                self.advance();
                if !self.skip_until('*', ')') {
                    return Some(self.fail(start, "unterminated comment `(*`".to_string()));
                }
            } else if c == '"' && self.depth == 0 {
                let start = self.pos();
                self.advance();
                loop {
                    match self.peek(0) {
                        None => return Some(self.fail(start, "unterminated string".to_string())),
                        Some('"') => {
                            self.advance();
                            break;
                        }
                        Some('\\') => {
                            self.advance();
                            self.advance();
                        }
                        Some(_) => self.advance(),
                    }
                }
            } else {
                return None;
            }
        }
    }

    /// Skips up to and including the two-character terminator `a b`;
    /// false at the end of the input.
    fn skip_until(&mut self, a: char, b: char) -> bool {
        loop {
            match self.peek(0) {
                None => return false,
                Some(c) if c == a && self.peek(1) == Some(b) => {
                    self.advance();
                    self.advance();
                    return true;
                }
                Some(_) => self.advance(),
            }
        }
    }

    /// The next token (`Eof` at the end, for ever; the first error token for
    /// ever after an error).
    pub fn next_token(&mut self) -> Token {
        if let Some(t) = &self.failed {
            return t.clone();
        }
        if let Some(err) = self.skip_trivia() {
            return err;
        }
        let pos = self.pos();
        let Some(c) = self.peek(0) else {
            return Token {
                kind: TokenKind::Eof,
                pos,
            };
        };
        let next = self.peek(1);
        if c.is_ascii_alphabetic() || c == '_' {
            let mut s = String::new();
            while let Some(c) = self.peek(0).filter(|c| c.is_ascii_alphanumeric() || *c == '_') {
                s.push(c);
                self.advance();
            }
            return Token {
                kind: TokenKind::Ident(s),
                pos,
            };
        }
        if c.is_ascii_digit() {
            return self.number(pos);
        }
        use TokenKind as T;
        let (kind, len) = match (c, next) {
            ('(', _) => (T::LParen, 1),
            (')', _) => (T::RParen, 1),
            ('{', _) => (T::LBrace, 1),
            ('}', _) => (T::RBrace, 1),
            ('[', _) => (T::LBracket, 1),
            (']', _) => (T::RBracket, 1),
            (';', _) => (T::Semi, 1),
            (',', _) => (T::Comma, 1),
            (':', _) => (T::Colon, 1),
            ('@', _) => (T::At, 1),
            ('=', Some('=')) => (T::EqEq, 2),
            ('=', _) => (T::Assign, 1),
            ('!', Some('=')) => (T::NotEq, 2),
            ('!', _) => (T::Bang, 1),
            ('<', Some('=')) => (T::Le, 2),
            ('<', Some('<')) => (T::Shl, 2),
            ('<', _) => (T::Lt, 1),
            ('>', Some('=')) => (T::Ge, 2),
            ('>', Some('>')) => (T::Shr, 2),
            ('>', _) => (T::Gt, 1),
            ('+', _) => (T::Plus, 1),
            ('-', _) => (T::Minus, 1),
            ('*', _) => (T::Star, 1),
            ('/', Some('\\')) => (T::Conj, 2),
            ('/', _) => (T::Slash, 1),
            ('\\', Some('/')) => (T::Disj, 2),
            ('%', _) => (T::Percent, 1),
            ('&', Some('&')) => (T::AmpAmp, 2),
            ('&', _) => (T::Amp, 1),
            ('|', Some('|')) => (T::PipePipe, 2),
            ('|', _) => (T::Pipe, 1),
            ('^', _) => (T::Caret, 1),
            ('~', _) => (T::Tilde, 1),
            ('"', _) => {
                return self.fail(
                    pos,
                    "string literals are only allowed between top-level items".to_string(),
                );
            }
            _ => return self.fail(pos, format!("unexpected character {c:?}")),
        };
        match kind {
            T::LParen | T::LBrace | T::LBracket => self.depth = self.depth.saturating_add(1),
            T::RParen | T::RBrace | T::RBracket => self.depth = self.depth.saturating_sub(1),
            _ => {}
        }
        for _ in 0..len {
            self.advance();
        }
        Token { kind, pos }
    }

    /// An integer literal starting at `pos` (the current character is a digit).
    fn number(&mut self, pos: Pos) -> Token {
        let hex = self.peek(0) == Some('0') && matches!(self.peek(1), Some('x' | 'X'));
        let radix = if hex {
            self.advance();
            self.advance();
            16
        } else {
            10
        };
        let mut value: Option<u64> = Some(0);
        let mut digits = 0usize;
        let mut bad = false;
        let mut text = String::from(if hex { "0x" } else { "" });
        while let Some(c) = self.peek(0).filter(|c| c.is_ascii_alphanumeric() || *c == '_') {
            if text.len() < 40 {
                text.push(c);
            }
            match c.to_digit(radix) {
                Some(d) => {
                    digits += 1;
                    value = value
                        .and_then(|v| v.checked_mul(u64::from(radix)))
                        .and_then(|v| v.checked_add(u64::from(d)));
                }
                None => bad = true,
            }
            self.advance();
        }
        if bad || digits == 0 {
            return self.fail(pos, format!("invalid integer literal `{text}`"));
        }
        match value {
            Some(v) => Token {
                kind: TokenKind::Int(v),
                pos,
            },
            None => self.fail(pos, "integer out of range".to_string()),
        }
    }
}
