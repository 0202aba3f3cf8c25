"""Perl on its real grammar (tree-sitter-perl 2.0), as Git's ``perl/Git.pm``, devscripts and
Linux's ``scripts/`` write it: subs named by their packages, POD and comments as docs."""

from __future__ import annotations

import pytest

from recalld.ingest.records import is_test_path
from recalld.parsers import parse
from recalld.parsers.debt import clean_comment_lines, pod_lines
from recalld.parsers.script_heads import interpreter_language

GIT_PM = b"""\
package Git;

use strict;

=head1 NAME

Git - Perl interface to the Git version control system

=cut

=item command ( COMMAND [, ARGUMENTS... ] )

Execute the given git C<COMMAND> (specify it without the I<git-> prefix).

=cut
sub command {
	my ($fh, $ctx) = command_output_pipe(@_);
	return <$fh>;
}

# Dies with the error of a failed command.
sub _cmd_close { 1 }

{
	package Git::Error::Command;
	sub cmdline { $_[0]->{'-cmdline'} }
}

sub Git::SVN::Utils::can_compress { 1 }

package Git::I18N {
	sub __ { $_[0] }
}

package main;

sub main_helper { 2 }
"""


def test_subs_are_named_by_the_package_they_stand_in():
    result = parse("perl", GIT_PM)
    assert result.syntax_errors == 0
    found = {s.qualname: (s.kind, s.name, s.start_line) for s in result.symbols[1:]}
    assert found == {
        "Git::command": ("function", "command", 16), "Git::_cmd_close": ("function", "_cmd_close", 22),
        "Git::Error::Command::cmdline": ("function", "cmdline", 26),
        "Git::SVN::Utils::can_compress": ("function", "can_compress", 29),
        "Git::I18N::__": ("function", "__", 32), "main_helper": ("function", "main_helper", 37),
    }  # fmt: skip


def test_pod_and_comments_above_a_sub_are_its_doc():
    docs = {s.qualname: s.docstring for s in parse("perl", GIT_PM).symbols}
    assert docs["Git::command"] == (
        "command ( COMMAND [, ARGUMENTS... ] )\n\nExecute the given git COMMAND (specify it without the git- prefix)."
    )
    assert docs["Git::_cmd_close"] == "Dies with the error of a failed command."
    assert docs["Git::SVN::Utils::can_compress"] == ""  # a package's sections (=head1) are no sub's doc


def test_a_files_doc_is_its_header_or_its_pods_name():
    assert parse("perl", GIT_PM).symbols[0].docstring == "Git - Perl interface to the Git version control system"
    header = b"#!/usr/bin/perl\n# Sends patches by mail.\nuse strict;\n\n=head1 NAME\n\nsend - mail\n\n=cut\n"
    assert parse("perl", header).symbols[0].docstring == "Sends patches by mail."


def test_rubys_block_comments_are_no_pod():
    assert "C<x> stays" in clean_comment_lines("=begin\nC<x> stays\n=end")


def test_a_pod_blocks_commands_and_codes_read_as_text():
    pod = "=head2 run\n\nRuns C<< $x->run >> with B<L<the guide|Guide>>.\n\n=over 4\n\n=item *\n\nOne.\n\n=back\n\n=cut"
    assert [line for line in pod_lines(pod) if line] == ["run", "Runs $x->run with the guide.", "*", "One."]


def test_perl_5_38s_methods_are_their_classs():
    source = b"use v5.38;\nclass Point 1.0 {\n    field $x :param = 0;\n    method norm { sqrt($x**2) }\n}\n"
    found = [(s.kind, s.qualname, s.signature) for s in parse("perl", source).symbols[1:]]
    assert found == [("method", "Point::norm", "method norm")]


@pytest.mark.parametrize(
    ("head", "language"),
    [(b"#!/usr/bin/perl -w\n", "perl"), (b'#!/bin/sh\nexec perl -x "$0" "$@"\n#!perl\n', "perl"),
     (b"#!/usr/bin/env perl\n", "perl")],
)  # fmt: skip
def test_a_perl_script_without_an_extension_is_perls(head, language):
    assert interpreter_language(head) == language


def test_perl_tests_are_test_code():
    assert is_test_path("t/basic.t") and is_test_path("t/lib/Helper.t")
    assert not is_test_path("lib/Test/More.pm") and not is_test_path("script.pl")


def test_a_cram_transcript_in_a_dot_t_file_is_no_perl():
    """Mercurial's and dune's ``.t`` tests are shell sessions (``  $ hg init``): not read; a
    Perl script whose POD shows a session is."""
    from recalld.ingest.files import unreadable

    cram = b"Commit a file:\n\n  $ hg init repo\n  $ cd repo\n  $ hg commit -Am first\n  adding a\n"
    script = b"use strict;\n\n=head1 SYNOPSIS\n\n  $ salsa fork js-team/node-mongodb\n\n=cut\n\nsub fork { 1 }\n"
    assert unreadable(cram, "perl") == "foreign" and unreadable(script, "perl") is None


def test_a_packages_sub_that_takes_its_invocant_is_its_method():
    source = (
        b"package Shape;\n\nsub new {\n    my ($class, %args) = @_;\n    return bless {%args}, $class;\n}\n\n"
        b"sub area {\n    # the cached one first\n    my $self = shift;\n    return $self->{area};\n}\n\n"
        b"sub name { shift->{name} }\n\nsub scale ($self, $by) { $self->{by} = $by }\n\n"
        b"sub max { my ($a, $b) = @_; $a > $b ? $a : $b }\n\npackage main;\n\nsub run { my ($self) = @_; }\n"
    )
    found = {s.qualname: s.kind for s in parse("perl", source).symbols[1:]}
    assert found == {
        "Shape::new": "method", "Shape::area": "method", "Shape::name": "method", "Shape::scale": "method",
        "Shape::max": "function", "run": "function",
    }  # fmt: skip


# What Perl's grammar reads as errors, after which it reads nothing more: a ``$``-delimited
# pattern (Linux's ``get_maintainer.pl``), a blank prototype (``User::pwent``), ``@#`` in a
# character class (YAML::Tiny's quoting rule, autodie's), a shift before a name read as a
# here-document (``Devel::Peek``).
GAPS = b"""\
package Mail::Finder;

sub emails {
    my ($text) = @_;
    my @found = $text =~ m$[A-Za-z0-9_\\.\\+-]+\\@[A-Za-z0-9\\.-]+\\.[A-Za-z]+$g;
    (my $plain = $text) =~ s$<[^>]*>$ $g;
    return @found;
}

sub getpwent :prototype( ) { populate(CORE::getpwent()) }

sub needs_quotes {
    my ($string) = @_;
    return $string =~ /(?:^[~!@#%&*|>?:,'"`{}\\[\\]]|^-+$|\\s|:\\z)/;
}

sub takes_args { return $_[-1] =~ m/[@#]_/ }

sub flags {
    my ($on, $names) = @_;
    my $num = 0;
    $num |= (1<<index($names, $_)) for split //, $on;
    return $num;
}

sub last_one { 1 }
"""


def test_what_perls_grammar_cannot_read_is_read_again():
    result = parse("perl", GAPS)
    assert result.syntax_errors == 0
    found = {s.qualname: (s.start_line, s.end_line) for s in result.symbols[1:]}
    assert found == {
        "Mail::Finder::emails": (3, 8), "Mail::Finder::getpwent": (10, 10), "Mail::Finder::needs_quotes": (12, 15),
        "Mail::Finder::takes_args": (17, 17), "Mail::Finder::flags": (19, 24), "Mail::Finder::last_one": (26, 26),
    }  # fmt: skip
    emails = result.symbols[1]
    assert "m$[A-Za-z0-9_" in emails.source and ":prototype( )" in result.symbols[2].signature


def test_the_perl_rewrite_keeps_every_line_and_length():
    from recalld.parsers.perl_gaps import readable

    rewritten = readable(GAPS)
    assert len(rewritten) == len(GAPS) and rewritten.count(b"\n") == GAPS.count(b"\n")
    assert b"m![A-Za-z0-9_" in rewritten and b"[A-Za-z]+!g" in rewritten and b"s!<[^>]*>! !g" in rewritten
    assert b":prototype(;)" in rewritten and b"[@_]_" in rewritten and b"~!@_%&" in rewritten
    assert b"(1* index(" in rewritten
    untouched = (
        b"my $s = $x; my $last = $#list; print <<EOT;\nhere\nEOT\n"
        b"$path =~ s#/$##; my $n = $#{$ref}; sub new : lvalue { 1 }\nmy $y = $h{s} . '$';\n"
    )
    assert readable(untouched) == untouched


# Mojolicious' and DBIx::Class' style: the module's POD after ``__END__``, a heading or an
# item for each method.
AGENT = b"""\
package Web::Agent;
use Mojo::Base -base;

sub build_tx { shift->transactor->tx(@_) }

# Starts the request loop.
sub start { 1 }

sub _cleanup { 1 }

package Web::Agent::Queue;

sub start { 2 }

1;
__END__

=head1 NAME

Web::Agent - Non-blocking I/O HTTP user agent

=head1 METHODS

=head2 build_tx

  my $tx = $ua->build_tx(GET => 'example.com');

Generate a C<Mojo::Transaction::HTTP> object.

=head2 start

Starts a transaction, see L<the loop|Mojo::IOLoop>.

=over 2

=item * blocking, the default

=back

=head2 C<< $ua->_cleanup >>

Frees what the agent holds.

=cut
"""


def test_a_modules_pod_documents_its_subs_by_their_names():
    """A sub without a doc of its own takes the POD section of its name, the file's package's."""
    docs = {s.qualname: s.docstring for s in parse("perl", AGENT).symbols}
    assert docs["Web::Agent::build_tx"] == (
        "build_tx\n\n  my $tx = $ua->build_tx(GET => 'example.com');\n\nGenerate a Mojo::Transaction::HTTP object."
    )
    assert docs["Web::Agent::start"] == "Starts the request loop."  # its own comments first
    assert docs["Web::Agent::_cleanup"] == "$ua->_cleanup\n\nFrees what the agent holds."
    assert docs["Web::Agent::Queue::start"] == ""  # another package's
    assert docs["<module>"] == "Web::Agent - Non-blocking I/O HTTP user agent"


def test_a_section_ends_at_the_next_heading_and_an_item_at_the_next_item():
    from recalld.parsers.pod_sections import pod_sections
    from recalld.parsers.registry import get_language
    from recalld.parsers.treesitter import parse_tree

    source = AGENT.replace(b"# Starts the request loop.\n", b"") + (
        b"\n=pod\n\n=over\n\n=item stop( $force )\n\nStops it.\n\n=item 1. first\n\n=item *\n\nA bullet.\n\n=back\n"
    )
    package, sections = pod_sections(parse_tree(get_language("perl"), source).root_node, source)
    assert package == "Web::Agent"
    assert sections["start"] == "start\n\nStarts a transaction, see the loop.\n\n* blocking, the default"
    assert sections["stop"] == "stop( $force )\n\nStops it."
    assert set(sections) == {"build_tx", "start", "_cleanup", "stop"}


def test_an_empty_formatting_code_is_no_text_and_no_crash():
    """Pod::Simple's own POD writes ``C<<  >>``: its text is nothing (it raised, and a sub's
    POD holding one made its file a parser error)."""
    assert pod_lines("=item x\n\nC<<  >> and C<< a >> and E<>") == ["x", "", " and a and"]
    source = b"=head2 quote\n\nWrites C<<  >> around nothing.\n\n=cut\nsub quote { 1 }\n"
    assert parse("perl", source).symbols[1].docstring == "quote\n\nWrites  around nothing."
