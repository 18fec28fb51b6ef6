//! The top level of a test: its header, the init block, declared types and
//! the threads with their placements and parameters.

use super::*;

impl Parser {
    // ---- top level ----

    pub(super) fn test(mut self) -> PResult<Test> {
        let head = self.peek().clone();
        let arch = match &head.kind {
            // Any case, as for `PTX` and `VULKAN`: Dat3M writes `OPENCL`,
            // herd's OpenCL tests `OpenCL`.
            T::Ident(s) if s.eq_ignore_ascii_case("C") => Arch::C,
            T::Ident(s) if s.eq_ignore_ascii_case("OPENCL") => Arch::OpenCl,
            _ => return Err(Self::error_at(&head, "a header `C <name>` or `OPENCL <name>`")),
        };
        self.bump();
        self.arch = arch;
        // Nothing is buffered past the header keyword: the name is the raw rest of its line.
        let name_pos = self.lex.pos();
        let name = self.lex.rest_of_line().trim().to_string();
        if name.is_empty() {
            let kw = if arch == Arch::C { "C" } else { "OPENCL" };
            return Err(Self::error(
                name_pos,
                format!("expected a test name after `{kw}`, found end of line"),
            ));
        }

        // Still nothing buffered: herd's `Key=value` information lines.
        self.lex.skip_info_lines();
        let init = self.init_block()?;

        let mut threads: Vec<Thread> = Vec::new();
        let mut seen: HashMap<u32, Pos> = HashMap::new();
        while let Some(name) = self.ident_at(0) {
            if thread_name(&name).is_none() {
                break;
            }
            let t = self.thread()?;
            if let Some(first) = seen.insert(t.index, t.pos) {
                return Err(Self::error(
                    t.pos,
                    format!("duplicate thread `P{}` (already defined at {first})", t.index),
                ));
            }
            threads.push(t);
        }
        if threads.is_empty() {
            return Err(self.expected("a thread `P0 (...) { ... }`"));
        }

        let mut locations = Vec::new();
        if self.at_ident("locations") {
            self.bump();
            locations = self.locations()?;
        }

        // herd's `filter P`: only executions whose final state satisfies P
        // are kept (filter.rs); it must come with a condition.
        let mut filter = None;
        if self.at_ident("filter") {
            let at = self.pos();
            self.bump();
            let (f, _) = self.prop_or()?;
            filter = Some((f, std::mem::take(&mut self.cond_vars)));
            if !(self.at_ident("exists") || self.at_ident("forall") || self.at(&T::Tilde)) {
                return Err(Self::error(
                    at,
                    "a `filter` must be followed by the condition (`exists`, `~exists` or `forall`)",
                ));
            }
        }
        let condition = if self.at_ident("exists") || self.at_ident("forall") || self.at(&T::Tilde) {
            let mut c = self.condition()?;
            if let Some((f, mut vars)) = filter {
                c.filter = Some(f);
                vars.append(&mut c.vars);
                c.vars = vars;
            }
            self.eat(&T::Semi);
            if !self.at(&T::Eof) {
                return Err(self.expected("end of input after the condition"));
            }
            Some(c)
        } else {
            if !self.at(&T::Eof) {
                let what = if locations.is_empty() {
                    "a thread, `locations`, `filter`, `exists`, `~exists`, `forall` or end of input"
                } else {
                    "`filter`, `exists`, `~exists`, `forall` or end of input"
                };
                return Err(self.expected(what));
            }
            None
        };

        Ok(Test {
            arch,
            name,
            init,
            threads,
            locations,
            condition,
            gpu: None,
        })
    }

    // ---- init block ----

    pub(super) fn init_block(&mut self) -> PResult<Vec<Init>> {
        let open = self.expect(&T::LBrace, "the init block `{`")?;
        let mut entries = Vec::new();
        loop {
            if self.at(&T::Eof) || self.at_thread_header() {
                return Err(self.unclosed_init(open.pos));
            }
            match self.kind() {
                T::RBrace => {
                    self.bump();
                    return Ok(entries);
                }
                T::Semi => {
                    self.bump();
                }
                _ => {
                    entries.push(self.init_entry()?);
                    if !matches!(self.kind(), T::Semi | T::RBrace) {
                        return Err(self.expected("`;` or `}` after an init entry"));
                    }
                }
            }
        }
    }

    #[cold]
    #[inline(never)]
    pub(super) fn unclosed_init(&mut self, open: Pos) -> ParseError {
        self.expected(&format!("`}}` to close the init block opened at {open}"))
    }

    pub(super) fn init_entry(&mut self) -> PResult<Init> {
        const WHAT: &str = "an init entry (`x = 0`, `[x] = 0`, `int x = 0`, `int x`, `P0:r0 = 0`)";
        let pos = self.pos();
        let mut ty = None;
        let target = match self.kind().clone() {
            T::LBracket => {
                self.bump();
                let (name, _) = self.name("a location name")?;
                self.expect(&T::RBracket, "`]`")?;
                InitTarget::Loc(name)
            }
            T::Int(_) => {
                let thread = self.u32_lit("a thread number")?;
                self.expect(&T::Colon, "`:` after the thread number")?;
                let (reg, _) = self.name("a register name")?;
                InitTarget::Reg { thread, reg }
            }
            T::Ident(s) => {
                if is_type_start(&s) {
                    ty = Some(self.parse_type()?);
                    self.init_declarator()?
                } else if let (Some(n), true) = (thread_name(&s), matches!(self.peek_at(1).kind, T::Colon)) {
                    let t = self.bump();
                    let thread = n.map_err(|_| Self::error(t.pos, "integer out of range"))?;
                    self.bump();
                    let (reg, _) = self.name("a register name")?;
                    InitTarget::Reg { thread, reg }
                } else {
                    self.init_declarator()?
                }
            }
            _ => return Err(self.expected(WHAT)),
        };
        // A typed declaration without an initializer (`int x;`,
        // `__int128 y;`, `int a[2];`) starts at 0, as in C and herd.
        if ty.is_some() && matches!(self.kind(), T::Semi | T::RBrace) {
            let value = match &target {
                InitTarget::Array { .. } => InitValue::List(Vec::new()),
                _ => InitValue::Int(0),
            };
            return Ok(Init { target, ty, value, pos });
        }
        self.expect(&T::Assign, "`=`")?;
        let value = if let InitTarget::Array { name, len } = &target {
            let open = self.peek().clone();
            if open.kind != T::LBrace {
                return Err(self.expected(&format!("`{{` to start the elements of array `{name}`")));
            }
            self.bump();
            let mut items = Vec::new();
            while !self.at(&T::RBrace) {
                let item_pos = self.pos();
                items.push(self.signed_lit("an integer element or `}`")?);
                if items.len() as u64 > u64::from(*len) {
                    return Err(Self::error(
                        item_pos,
                        format!("too many elements: array `{name}` has {len}"),
                    ));
                }
                if !self.eat(&T::Comma) && !self.at(&T::RBrace) {
                    return Err(self.expected("`,` or `}` in the element list"));
                }
            }
            self.bump();
            InitValue::List(items)
        } else {
            self.init_value()?
        };
        Ok(Init { target, ty, value, pos })
    }

    /// `x` or `x[N]` (after an optional type).
    pub(super) fn init_declarator(&mut self) -> PResult<InitTarget> {
        let (name, _) = self.name("a location name")?;
        if self.eat(&T::LBracket) {
            let len_pos = self.pos();
            let len = self.u32_lit("the array length")?;
            if len == 0 {
                return Err(Self::error(
                    len_pos,
                    "expected an array length of at least 1, found `0`",
                ));
            }
            self.expect(&T::RBracket, "`]`")?;
            Ok(InitTarget::Array { name, len })
        } else {
            Ok(InitTarget::Loc(name))
        }
    }

    pub(super) fn init_value(&mut self) -> PResult<InitValue> {
        const WHAT: &str = "an initial value (an integer, `x` or `&x`)";
        match self.kind() {
            T::Int(_) | T::Minus => Ok(InitValue::Int(self.signed_lit(WHAT)?)),
            T::Amp => {
                self.bump();
                Ok(InitValue::Addr(self.name("a location name after `&`")?.0))
            }
            T::Ident(_) => Ok(InitValue::Addr(self.name(WHAT)?.0)),
            T::LBrace => {
                let p = self.pos();
                Err(Self::error(
                    p,
                    "expected a single value, found `{` (element lists need an array declaration such as `int y[2]`)",
                ))
            }
            _ => Err(self.expected(WHAT)),
        }
    }

    // ---- types ----

    pub(super) fn parse_type(&mut self) -> PResult<Type> {
        let mut ty = Type {
            space: None,
            atomic: false,
            volatile: false,
            base: String::new(),
            pointer: 0,
        };
        self.qualifiers(&mut ty)?;
        let tok = self.peek().clone();
        let name = match &tok.kind {
            T::Ident(s) => s.clone(),
            _ => return Err(Self::error_at(&tok, "a type")),
        };
        if name == "_Atomic" {
            self.bump();
            ty.atomic = true;
            if self.eat(&T::LParen) {
                ty.base = self.base_type()?;
                self.expect(&T::RParen, "`)` after the type in `_Atomic(...)`")?;
            } else {
                ty.base = self.base_type()?;
            }
        } else if let Some(b) = name.strip_prefix("atomic_").filter(|b| BASES.contains(b)) {
            self.bump();
            ty.atomic = true;
            ty.base = b.to_string();
        } else {
            ty.base = self.base_type()?;
        }
        self.qualifiers(&mut ty)?;
        while self.at(&T::Star) {
            let star = self.bump();
            ty.pointer = ty
                .pointer
                .checked_add(1)
                .ok_or_else(|| Self::error(star.pos, "too many `*` in a type"))?;
            while matches!(self.kind(), T::Ident(s) if s == "const" || s == "volatile") {
                self.bump();
            }
        }
        Ok(ty)
    }

    /// `global`, `local`, `volatile`, `const`, in any order.
    pub(super) fn qualifiers(&mut self, ty: &mut Type) -> PResult<()> {
        while let Some(q) = self.ident_at(0).filter(|s| is_qualifier(s)) {
            let t = self.bump();
            let space = match q.as_str() {
                "global" | "__global" => AddressSpace::Global,
                "local" | "__local" => AddressSpace::Local,
                "volatile" => {
                    ty.volatile = true;
                    continue;
                }
                _ => continue,
            };
            if ty.space.is_some_and(|s| s != space) {
                return Err(Self::error(t.pos, format!("conflicting address space `{q}`")));
            }
            ty.space = Some(space);
        }
        Ok(())
    }

    /// `int`, `long`, `uint`, `unsigned int`, ...
    pub(super) fn base_type(&mut self) -> PResult<String> {
        const WHAT: &str = "a type (`int`, `long`, `uint`, `unsigned int`, ...)";
        let Some(name) = self.ident_at(0) else {
            return Err(self.expected(WHAT));
        };
        let sign = match name.as_str() {
            "unsigned" => Some("u"),
            "signed" => Some(""),
            _ => None,
        };
        if let Some(prefix) = sign {
            self.bump();
            let base = match self.ident_at(0).as_deref() {
                Some(b @ ("int" | "long" | "char" | "short" | "__int128")) => {
                    let b = b.to_string();
                    self.bump();
                    b
                }
                _ => "int".to_string(),
            };
            self.long_long(&base);
            return Ok(format!("{prefix}{base}"));
        }
        if BASES.contains(&name.as_str()) {
            self.bump();
            self.long_long(&name);
            return Ok(name);
        }
        Err(self.expected(WHAT))
    }

    /// `long long` and `long int` read as `long`.
    pub(super) fn long_long(&mut self, base: &str) {
        if base == "long" && (self.at_ident("long") || self.at_ident("int")) {
            self.bump();
        }
    }

    // ---- threads ----

    pub(super) fn thread(&mut self) -> PResult<Thread> {
        let tok = self.bump();
        let pos = tok.pos;
        let index = match &tok.kind {
            T::Ident(s) => match thread_name(s) {
                Some(Ok(n)) => n,
                _ => return Err(Self::error(pos, "integer out of range")),
            },
            _ => return Err(Self::error_at(&tok, "a thread")),
        };
        let mut placement: Vec<(Level, u32)> = Vec::new();
        if self.eat(&T::At) {
            loop {
                const WHAT: &str = "a placement level (`wg`, `sg`, `dev`, `block`, `warp`, `device`)";
                let lt = self.peek().clone();
                let level = match &lt.kind {
                    T::Ident(s) => level_of(s).ok_or_else(|| Self::error_at(&lt, WHAT))?,
                    _ => return Err(Self::error_at(&lt, WHAT)),
                };
                self.bump();
                if placement.iter().any(|(l, _)| *l == level) {
                    return Err(Self::error(
                        lt.pos,
                        format!("duplicate placement level {}", lt.kind.describe()),
                    ));
                }
                let n = self.u32_lit("the index of the placement level")?;
                placement.push((level, n));
                if !self.eat(&T::Comma) {
                    break;
                }
            }
        }
        self.expect(&T::LParen, &format!("`(` to start the parameters of `P{index}`"))?;
        let mut params = Vec::new();
        if !self.eat(&T::RParen) {
            loop {
                let ppos = self.pos();
                if !self.ident_at(0).is_some_and(|s| is_type_start(&s)) {
                    return Err(self.expected("a parameter type (`atomic_int*`, `volatile int*`, ...)"));
                }
                let ty = self.parse_type()?;
                let (name, _) = self.name("a parameter name")?;
                params.push(Param { ty, name, pos: ppos });
                if self.eat(&T::RParen) {
                    break;
                }
                if !self.eat(&T::Comma) {
                    return Err(self.expected("`,` or `)` in the parameter list"));
                }
            }
        }
        let open = self.expect(&T::LBrace, &format!("`{{` to start the body of `P{index}`"))?;
        let body = self.block_rest(open.pos)?;
        Ok(Thread {
            index,
            placement,
            params,
            body,
            pos,
        })
    }
}
