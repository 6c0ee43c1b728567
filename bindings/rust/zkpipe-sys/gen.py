#!/usr/bin/env python3
"""Generates zkpipe-sys from zkpipe's public headers (include/zkpipe/*.h):

  src/bindings.rs  the raw declarations: types, constants and every ZKPIPE_API function;
  layout.c         a probe that build.rs compiles and runs against the installed headers, so
                   that a size, alignment, offset or constant that differs from C fails the
                   crate's build (const assertions in bindings.rs).

No bindgen: the headers keep to a small, regular subset of C (STYLE.md), which this reads;
anything outside it stops the script with the declaration it could not read.
Usage: gen.py [--check]   (--check: exit 1 when the committed files are out of date)
"""
import pathlib
import re
import sys

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[2]
INCLUDE = ROOT / "include" / "zkpipe"
# common.h holds only the export and linkage macros.
SKIP = {"common.h"}

PRIMITIVES = {
    "void": "c_void",
    "char": "c_char",
    "unsigned char": "c_uchar",
    "int": "c_int",
    "unsigned": "c_uint",
    "unsigned int": "c_uint",
    "long": "c_long",
    "unsigned long": "c_ulong",
    "size_t": "usize",
    "uint8_t": "u8",
    "uint16_t": "u16",
    "uint32_t": "u32",
    "uint64_t": "u64",
    "int8_t": "i8",
    "int16_t": "i16",
    "int32_t": "i32",
    "int64_t": "i64",
    "double": "f64",
    "float": "f32",
    "bool": "bool",
    "FILE": "FILE",
}
RUST_KEYWORDS = {"fn", "in", "type", "ref", "move", "match", "loop", "impl", "mod", "use",
                 "where", "struct", "enum", "trait", "box", "dyn", "let", "mut", "pub"}


class GenError(Exception):
    pass


def split_top(text, sep):
    """Splits at `sep` outside parentheses, brackets and braces."""
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == sep and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return [p.strip() for p in parts if p.strip()]


def strip_attributes(text):
    """Drops GNU `__attribute__((...))` and ZKPIPE_MUST_CHECK (format checks, unused-result
    warnings and the like: nothing the ABI sees)."""
    text = re.sub(r"\bZKPIPE_MUST_CHECK\b", " ", text)
    while True:
        i = text.find("__attribute__")
        if i < 0:
            return text
        j = text.index("(", i)
        depth = 0
        for k in range(j, len(text)):
            depth += text[k] == "("
            depth -= text[k] == ")"
            if depth == 0:
                break
        text = text[:i] + text[k + 1:]


class Header:
    def __init__(self, path):
        self.name = path.name
        text = path.read_text()
        text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
        text = re.sub(r"//[^\n]*", " ", text)
        text = text.replace("\\\n", " ")
        self.defines, body = [], []
        for line in text.split("\n"):
            s = line.strip()
            if s.startswith("#"):
                m = re.match(r"#\s*define\s+(\w+)(?!\()\s+(.+)$", s)
                if m:
                    self.defines.append((m.group(1), m.group(2).strip()))
                continue
            body.append(line)
        body = " ".join(body)
        body = body.replace("ZKPIPE_EXTERN_C_BEGIN", " ").replace("ZKPIPE_EXTERN_C_END", " ")
        self.decls = [" ".join(strip_attributes(d).split()) for d in split_top(body, ";")]


class Gen:
    def __init__(self):
        self.types = set(PRIMITIVES)  # C type names known so far
        self.consts = {}  # name -> rust type
        self.out = []  # rust items
        self.probe = []  # layout.c lines
        self.checks = []  # rust const assertions

    # --- types ---------------------------------------------------------------------------
    def base(self, name):
        name = " ".join(name.split())
        if name in PRIMITIVES:
            return PRIMITIVES[name]
        if name in self.types:
            return name
        raise GenError("unknown type `%s`" % name)

    def rust_type(self, ctype, ret=False):
        """A C type without declarator name: `const zkpipe_allocator *`, `uint64_t`."""
        toks = re.findall(r"\w+|\*", ctype)
        const_base = False
        base_words, stars = [], []
        i = 0
        while i < len(toks) and toks[i] != "*":
            if toks[i] == "const":
                const_base = True
            elif toks[i] not in ("struct", "enum"):
                base_words.append(toks[i])
            i += 1
        while i < len(toks):
            if toks[i] == "*":
                stars.append(False)
            elif toks[i] == "const":
                stars[-1] = True
            else:
                raise GenError("cannot read type `%s`" % ctype)
            i += 1
        r = self.base(" ".join(base_words))
        if r == "c_void" and not stars:
            if ret:
                return None
            raise GenError("void value in `%s`" % ctype)
        pointee_const = const_base
        for star_const in stars:
            r = ("*const " if pointee_const else "*mut ") + r
            pointee_const = star_const
        return r

    def fn_type(self, ret, params):
        r = self.rust_type(ret, ret=True)
        args = self.args(params)
        return "Option<unsafe extern \"C\" fn(%s)%s>" % (args, " -> " + r if r else "")

    def args(self, params):
        return ", ".join(n if t is None else "%s: %s" % (n, t) for n, t in self.params(params))

    def params(self, text):
        text = text.strip()
        if text in ("", "void"):
            return []
        out = []
        for p in split_top(text, ","):
            if p == "...":
                out.append(("...", None))
                continue
            m = re.match(r"(.+?)\(\s*\*\s*(\w+)\s*\)\s*\((.*)\)$", p)
            if m:
                out.append((self.ident(m.group(2)), self.fn_type(m.group(1), m.group(3))))
                continue
            m = re.match(r"(.*?)(\w+)\s*(\[\s*\])?$", p)
            if not m or not m.group(1).strip():
                raise GenError("cannot read parameter `%s`" % p)
            t = m.group(1) + ("*" if m.group(3) else "")
            out.append((self.ident(m.group(2)), self.rust_type(t)))
        return out

    @staticmethod
    def ident(name):
        return "r#" + name if name in RUST_KEYWORDS else name

    # --- expressions ---------------------------------------------------------------------
    def expr(self, text):
        """An integer constant expression in Rust, and the cast type when there is one."""
        text = text.strip()
        cast = None
        while text.startswith("(") and self.closes_at_end(text):
            text = text[1:-1].strip()
        m = re.match(r"\(\s*(\w+)\s*\)\s*(.*)$", text)
        if m and (m.group(1) in self.types or m.group(1) in PRIMITIVES):
            cast, text = m.group(1), m.group(2)
        toks = re.findall(r"0[xX][0-9a-fA-F]+[uUlL]*|\d+[uUlL]*|\w+|<<|>>|[-+*/|&~()]|\S", text)
        out = []
        for t in toks:
            if re.match(r"0[xX][0-9a-fA-F]+[uUlL]*$|\d+[uUlL]*$", t):
                out.append(t.rstrip("uUlL"))
            elif re.match(r"\w+$", t):
                if t not in self.consts:
                    raise GenError("unknown name `%s` in `%s`" % (t, text))
                out.append(t)
            elif t in ("<<", ">>", "-", "+", "*", "/", "|", "&", "(", ")"):
                out.append(t)
            elif t == "~":
                out.append("!")
            else:
                raise GenError("cannot read expression `%s`" % text)
        return " ".join(out).replace("( ", "(").replace(" )", ")"), cast

    @staticmethod
    def closes_at_end(text):
        depth = 0
        for i, ch in enumerate(text):
            depth += ch == "("
            depth -= ch == ")"
            if depth == 0:
                return i == len(text) - 1
        return False

    def array_len(self, text):
        e, _ = self.expr(text)
        return "(%s) as usize" % e if not re.match(r"\d+$", e) else e

    # --- declarations --------------------------------------------------------------------
    def define(self, name, value):
        if value == "" or name.endswith("_H"):
            return
        if value.startswith('"'):
            return
        e, cast = self.expr(value)
        t = self.base(cast) if cast else "u32"
        self.consts[name] = t
        self.out.append("pub const %s: %s = %s;" % (name, t, e))
        self.value_check(name)

    def value_check(self, name):
        self.probe.append("    V(%s);" % name)
        self.checks.append("const _: () = assert!(%s as i128 == layout::VALUE_%s as i128);"
                           % (name, name))

    def size_check(self, name):
        self.probe.append("    S(%s);" % name)
        self.checks.append("const _: () = assert!(size_of::<%s>() == layout::SIZE_%s);"
                           % (name, name))
        self.checks.append("const _: () = assert!(align_of::<%s>() == layout::ALIGN_%s);"
                           % (name, name))

    def enum(self, name, body):
        values, nxt, items = {}, 0, []
        for e in split_top(body, ","):
            m = re.match(r"(\w+)\s*(?:=\s*(.+))?$", e)
            if not m:
                raise GenError("cannot read enumerator `%s`" % e)
            if m.group(2) is not None:
                rust, _ = self.expr(m.group(2))
                try:
                    nxt = int(eval(rust.replace("!", "~"), {}, dict(values)))
                except Exception as ex:
                    raise GenError("cannot evaluate `%s`: %s" % (m.group(2), ex))
            values[m.group(1)] = nxt
            items.append((m.group(1), nxt))
            self.consts[m.group(1)] = name
            nxt += 1
        # GCC and clang give an enum with a negative enumerator the type int, else unsigned.
        t = "c_int" if any(v < 0 for _, v in items) else "c_uint"
        self.types.add(name)
        self.out.append("pub type %s = %s;" % (name, t))
        for n, v in items:
            self.out.append("pub const %s: %s = %d;" % (n, name, v))
            self.value_check(n)
        self.size_check(name)

    def struct(self, name, body):
        if "{" in body:
            raise GenError("nested struct in %s" % name)
        self.types.add(name)
        fields = []
        for member in split_top(body, ";"):
            m = re.match(r"(.+?)\(\s*\*\s*(\w+)\s*\)\s*\((.*)\)$", member)
            if m:
                fields.append((m.group(2), self.fn_type(m.group(1), m.group(3))))
                continue
            m = re.match(r"((?:const\s+)?(?:unsigned\s+|struct\s+)?\w+)\s+(.+)$", member)
            if not m:
                raise GenError("cannot read member `%s` of %s" % (member, name))
            base = m.group(1)
            for d in split_top(m.group(2), ","):
                dm = re.match(r"((?:\*\s*(?:const\s*)?)*)(\w+)\s*((?:\[[^\]]+\]\s*)*)$", d)
                if not dm:
                    raise GenError("cannot read declarator `%s` of %s" % (d, name))
                t = self.rust_type(base + " " + dm.group(1))
                for dim in reversed(re.findall(r"\[([^\]]+)\]", dm.group(3))):
                    t = "[%s; %s]" % (t, self.array_len(dim))
                fields.append((dm.group(2), t))
        self.out.append("#[repr(C)]\n#[derive(Copy, Clone)]\npub struct %s {" % name)
        for f, t in fields:
            self.out.append("    pub %s: %s," % (self.ident(f), t))
        self.out.append("}")
        self.size_check(name)
        for f, t in fields:
            self.probe.append("    F(%s, %s);" % (name, f))
            self.checks.append("const _: () = assert!(offset_of!(%s, %s) == layout::OFFSET_%s_%s);"
                               % (name, self.ident(f), name, f))
            self.checks.append("const _: () = assert!(field_size(|s: &%s| &s.%s) == layout::FSIZE_%s_%s);"
                               % (name, self.ident(f), name, f))

    def opaque(self, name):
        self.types.add(name)
        self.out.append("#[repr(C)]\npub struct %s {\n    _private: [u8; 0],\n"
                        "    _not_send_sync_unpin: PhantomData<(*mut u8, PhantomPinned)>,\n}"
                        % name)

    def decl(self, d):
        m = re.match(r"typedef enum (?:\w+ )?\{(.*)\} (\w+)$", d)
        if m:
            return self.enum(m.group(2), m.group(1))
        m = re.match(r"typedef struct (\w+) \{(.*)\} (\w+)$", d)
        if m:
            if m.group(1) != m.group(3):
                raise GenError("struct %s typedef'd as %s" % (m.group(1), m.group(3)))
            return self.struct(m.group(3), m.group(2))
        m = re.match(r"typedef struct (\w+) (\w+)$", d)
        if m:
            return self.opaque(m.group(2))
        m = re.match(r"typedef (.+?)\(\s*\*\s*(\w+)\s*\)\s*\((.*)\)$", d)
        if m:
            self.types.add(m.group(2))
            self.out.append("pub type %s = %s;" % (m.group(2), self.fn_type(m.group(1), m.group(3))))
            return None
        m = re.match(r"typedef (.+?)\b(\w+)$", d)
        if m:
            t = self.rust_type(m.group(1))
            self.types.add(m.group(2))
            self.out.append("pub type %s = %s;" % (m.group(2), t))
            return self.size_check(m.group(2))
        m = re.match(r"ZKPIPE_API (.+?)\b(\w+) ?\((.*)\)$", d)
        if m:
            r = self.rust_type(m.group(1), ret=True)
            args = self.args(m.group(3))
            return ("    pub fn %s(%s)%s;" % (m.group(2), args, " -> " + r if r else ""))
        raise GenError("cannot read declaration `%s`" % d)

    def declare(self, h):
        """Registers the names `h` defines, so that declarations may use them in any order."""
        for name, _ in h.defines:
            self.consts[name] = None
        for d in h.decls:
            m = re.match(r"typedef enum (?:\w+ )?\{(.*)\} (\w+)$", d)
            if m:
                self.types.add(m.group(2))
                for e in split_top(m.group(1), ","):
                    self.consts[re.match(r"\w+", e).group(0)] = None
                continue
            m = re.match(r"typedef .*?\(\s*\*\s*(\w+)\s*\)\s*\(.*\)$", d) or re.match(
                r"typedef .*?\b(\w+)$", d)
            if m:
                self.types.add(m.group(1))

    def run(self):
        headers = [Header(p) for p in sorted(INCLUDE.glob("*.h")) if p.name not in SKIP]
        for h in headers:
            self.declare(h)
        items, fns = {}, {}
        for h in headers:
            mark = len(self.out)
            for name, value in h.defines:
                self.define(name, value)
            for d in h.decls:
                fn = self.decl(d)
                if fn:
                    fns.setdefault(h.name, []).append(fn)
            items[h.name] = self.out[mark:]
        return headers, items, fns

    def render(self):
        headers, items, fns = self.run()
        rs = [
            "// Generated by gen.py from zkpipe's include/zkpipe/*.h: do not edit; run",
            "// `python3 bindings/rust/zkpipe-sys/gen.py` after changing a public header.",
            "",
            "use core::ffi::{c_char, c_int, c_uint, c_void};",
            "#[allow(unused_imports)]",
            "use core::ffi::{c_long, c_uchar, c_ulong};",
            "use core::marker::{PhantomData, PhantomPinned};",
            "#[allow(unused_imports)]",
            "use core::mem::{align_of, offset_of, size_of};",
            "",
            "/// The C library's stream type, for the functions that write to one.",
            "#[repr(C)]",
            "pub struct FILE {",
            "    _private: [u8; 0],",
            "    _not_send_sync_unpin: PhantomData<(*mut u8, PhantomPinned)>,",
            "}",
        ]
        for h in headers:
            if not items[h.name] and not fns.get(h.name):
                continue
            rs += ["", "// ---- zkpipe/%s" % h.name, ""]
            rs += items[h.name]
            if fns.get(h.name):
                rs += ["", "extern \"C\" {"] + fns[h.name] + ["}"]
        rs += ["", "// ---- layout: every size, alignment, offset and value as the C compiler",
               "// sees them (layout.c, run by build.rs)", "",
               "#[allow(dead_code, non_upper_case_globals)]",
               "mod layout {",
               "    include!(concat!(env!(\"OUT_DIR\"), \"/layout.rs\"));",
               "}",
               "",
               "const fn field_size<T, F>(_: fn(&T) -> &F) -> usize {",
               "    size_of::<F>()",
               "}",
               ""] + self.checks
        c = [
            "/* Generated by gen.py from zkpipe's headers (include/zkpipe): do not edit. Prints, as",
            " * Rust constants, what the C compiler makes of zkpipe's types; zkpipe-sys's build script",
            " * runs it and the crate's const assertions compare. */",
            "#include <stddef.h>",
            "#include <stdio.h>",
            "",
            "#include <zkpipe/zkpipe.h>",
            "",
            "#define S(T)                                                                                       \\",
            "    printf(\"pub const SIZE_%s: usize = %zu;\\npub const ALIGN_%s: usize = %zu;\\n\", #T, sizeof(T),   \\",
            "           #T, _Alignof(T))",
            "#define F(T, f)                                                                                    \\",
            "    printf(\"pub const OFFSET_%s_%s: usize = %zu;\\npub const FSIZE_%s_%s: usize = %zu;\\n\", #T, #f,  \\",
            "           offsetof(T, f), #T, #f, sizeof(((T *)0)->f))",
            "#define V(N) printf(\"pub const VALUE_%s: i128 = %lld;\\n\", #N, (long long)(N))",
            "",
            "int main(void)",
            "{",
        ] + self.probe + ["    return 0;", "}"]
        return "\n".join(rs) + "\n", "\n".join(c) + "\n"


def main():
    check = "--check" in sys.argv[1:]
    try:
        rs, c = Gen().render()
    except GenError as e:
        sys.exit("gen.py: %s" % e)
    targets = {HERE / "src" / "bindings.rs": rs, HERE / "layout.c": c}
    stale = [p for p, text in targets.items() if not p.exists() or p.read_text() != text]
    if check:
        for p in stale:
            print("out of date: %s (run python3 %s)" % (p.relative_to(ROOT), pathlib.Path(__file__).relative_to(ROOT)))
        sys.exit(1 if stale else 0)
    for p in stale:
        p.write_text(targets[p])
        print("wrote", p.relative_to(ROOT))


if __name__ == "__main__":
    main()
