"""C's old-style (K&R) definitions that return a pointer (``parsers/old_style.py``): C's
grammar read each as a declaration and a stray block, so the function lost its body."""

from __future__ import annotations

from recalld.parsers import parse
from recalld.parsers.old_style import misreads, readable


def spans(source: str) -> dict[str, tuple[int, int, str, str]]:
    """qualname -> (first line, last line, signature, docstring) of each function."""
    result = parse("c", source.encode(), path="old.c")
    return {s.qualname: (s.start_line, s.end_line, s.signature, s.docstring) for s in result.symbols if s.kind == "function"}


# zlib 1.2.13's ``test/minigzip.c``, less 590's ``regexp.c`` and bash 5.2's ``lib/sh/stringvec.c``, in short
MINIGZIP = """void *myalloc OF((void *, unsigned, unsigned));

/* Allocate zeroed memory. */
void *myalloc(q, n, m)
    void *q;
    unsigned n, m;
{
    (void)q;
    return calloc(n, m);
}

static char *
reg(paren, flagp)
int paren;			/* Parenthesized? */
int *flagp;
{
	return regnode(paren);
}

char **
strvec_resize (array, nsize)
     char **array;
     int nsize;
{
  return ((char **)xrealloc (array, nsize * sizeof (char *)));
}

local void *once(state, init)
    once_t *state;
    void (*init)(void);
{
    init();
    return state;
}

int add(a, b)
int a;
int b;
{
    return a + b;
}
"""


def test_an_old_style_definition_of_a_pointer_is_read_whole():
    """Each function spans its body, with its doc and no second one (``myalloc#2``) where
    its prototype stood: the prototype is its declaration, merged into it as an ANSI
    definition's is. The signature is the source as written, ``*`` and declarations."""
    found = spans(MINIGZIP)
    assert found == {
        "myalloc": (4, 10, "void *myalloc(q, n, m) void *q; unsigned n, m", "Allocate zeroed memory."),
        "reg": (12, 18, "static char * reg(paren, flagp) int paren; int *flagp", ""),
        "strvec_resize": (20, 26, "char ** strvec_resize (array, nsize) char **array; int nsize", ""),
        "once": (28, 34, "local void *once(state, init) once_t *state; void (*init)(void)", ""),
        "add": (36, 41, "int add(a, b) int a; int b", ""),
    }


def test_one_the_grammar_reads_without_an_error_is_read_whole_too():
    """gawk's ``missing_d/strerror.c``: C's grammar read ``char *strerror(n) int n;`` as a
    declaration with two attributes and the block after it as a block of its own, with no
    syntax error to send the file to a second reading."""
    source = "extern int sys_nerr;\n\nchar *\nstrerror(n)\nint n;\n{\n\tstatic char mesg[30];\n\treturn mesg;\n}\n"
    assert misreads(source.encode())
    assert spans(source) == {"strerror": (3, 9, "char * strerror(n) int n", "")}


def test_only_the_stars_are_blanked_and_nothing_else_is_taken_for_one():
    """The rewrite keeps every byte's offset; an ANSI definition, a prototype, a call, a
    comment's ``*`` and a comment that shows the old style are left as written."""
    rewritten = readable(MINIGZIP.encode())
    assert len(rewritten) == len(MINIGZIP) and rewritten.count(b"\n") == MINIGZIP.count("\n")
    assert b"void  myalloc(q, n, m)" in rewritten and b"static char  \nreg(" in rewritten
    assert b"char   \nstrvec_resize" in rewritten and b"void *myalloc OF((" in rewritten
    assert b"void *q;" in rewritten  # a parameter's declaration keeps its own
    plain = (
        "/* A definition once read:\n * char *f(a)\n *     int a;\n * {\n */\n"
        "static char *copy(const char *s)\n{\n    return strdup(s);\n}\n"
        "char *name(int);\nvoid g(void) { p = *h(a, b); x = y * z(w);\n}\n"
        "/**/char *f(a) int a; {}\n"
    )
    assert not misreads(plain.encode()[: plain.index("/**/")])
    assert readable(plain.encode()) == plain.replace("/**/char *f", "/**/char  f").encode()
