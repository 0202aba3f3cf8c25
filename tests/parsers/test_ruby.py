"""Ruby on its real grammar: classes and modules opened again, RSpec's titles, magic
comments, test paths."""

from __future__ import annotations

from recalld.ingest.records import is_test_path
from recalld.parsers import parse


def qualnames(source: str) -> list[str]:
    return [s.qualname for s in parse("ruby", source.encode(), path="lib/a.rb").symbols[1:]]


def test_a_module_opened_again_names_its_members_under_its_own_name():
    source = (
        "module ActiveRecord\n  class Base; end\nend\n\n"
        "module ActiveRecord\n  module Migration\n    def self.up; end\n  end\nend\n"
    )
    assert qualnames(source) == [
        "ActiveRecord", "ActiveRecord.Base", "ActiveRecord#2", "ActiveRecord.Migration", "ActiveRecord.Migration.up",
    ]  # fmt: skip


def test_rspec_groups_and_examples_are_named_by_their_titles():
    source = (
        "RSpec.describe Shapes::Shape do\n  context 'when empty' do\n    it \"draws nothing\" do\n"
        "      def helper; end\n    end\n  end\nend\n"
    )
    assert qualnames(source) == [
        "Shapes::Shape", 'Shapes::Shape."when empty"', 'Shapes::Shape."when empty"."draws nothing"',
    ]


def test_rails_and_shoulda_tests_are_named_by_their_titles():
    """``test "…" do`` (Rails' tests, 6,403 in Rails 7.2 itself) and shoulda's ``should
    "…" do`` made no memory; what a test defines on an object of its own is the test's."""
    source = (
        "class DirtyTest < ActiveRecord::TestCase\n  test \"reader can be overridden\" do\n"
        "    def pirate.catchphrase; end\n  end\n\n  should 'save' do\n  end\n  def catchphrase; end\nend\n"
        "test_case.test 'not a test'\ntest(name) { }\n"
    )
    assert qualnames(source) == [
        "DirtyTest", 'DirtyTest."reader can be overridden"', 'DirtyTest."save"', "DirtyTest.catchphrase",
    ]


def test_a_class_method_beside_an_instance_method_of_its_name_is_named_as_written():
    """Rails' ``AbstractController::Base`` defines ``controller_path`` in ``class << self``
    and for its instances: the second was ``#2``, whichever came first."""
    source = (
        "class Base\n  class << self\n    def controller_path; end\n    def internal?; end\n  end\n"
        "  def self.action_methods; end\n  def controller_path; end\n  def action_methods; end\n"
        "  def Base.action_methods; end\nend\n"
        "module Attachable\n  class_methods do\n    def from_sgid; end\n  end\n  def from_sgid; end\n"
        "  included do\n    def named; end\n  end\n  def named; end\nend\n"
    )
    assert qualnames(source) == [
        "Base", "Base.self.controller_path", "Base.internal?", "Base.self.action_methods", "Base.controller_path",
        "Base.action_methods", "Base.self.action_methods#2",
        "Attachable", "Attachable.self.from_sgid", "Attachable.from_sgid", "Attachable.named", "Attachable.named#2",
    ]  # fmt: skip


def test_a_method_defined_on_a_named_class_is_that_classs():
    """Redmine's test helpers define ``generate!`` on eighteen models from one module
    (``def Group.generate!``): they were ``ObjectHelpers.generate!#2`` to ``#18`` by order."""
    source = (
        "module ObjectHelpers\n  def User.generate!(a); end\n  def Group.generate!(a); end\n  def generate!; end\nend\n"
        "class Group\n  def Group.build; end\nend\n"
    )
    assert qualnames(source) == [
        "ObjectHelpers", "ObjectHelpers.User.generate!", "ObjectHelpers.Group.generate!", "ObjectHelpers.generate!",
        "Group", "Group.build",
    ]  # fmt: skip


def test_a_magic_comment_is_no_doc_and_a_top_level_class_is_the_top_levels():
    source = "# frozen_string_literal: true\n# typed: strict\nclass ::Widget\nend\n"
    module, widget = parse("ruby", source.encode()).symbols
    assert (module.docstring, widget.qualname, widget.docstring) == ("", "Widget", "")


def test_a_magic_comment_is_read_in_any_case_and_with_hyphens():
    """Ruby reads a magic comment's name in any case, ``-`` for ``_``: did_you_mean's ``#
    frozen-string-literal: true`` was the doc of 5 of its files and, right above it, of its
    module; time.rb's ``# shareable_constant_value: literal`` was the file's."""
    for magic in ("# frozen-string-literal: true", "# Frozen_String_Literal: false", "# shareable_constant_value: literal"):
        for gap in ("\n", ""):
            module, checker = parse("ruby", f"{magic}\n{gap}module DidYouMean\nend\n".encode()).symbols
            assert (module.docstring, checker.docstring) == ("", "")


def test_a_scope_written_inside_itself_is_the_enclosing_one_and_double_colon_the_top_level():
    source = (
        "module Shapes\n  class Shapes::Circle\n    def area; end\n  end\n  class ::Widget\n    def draw; end\n"
        "  end\n  class Net::Socket; end\nend\nmodule A\n  module B\n    class B::C; end\n  end\nend\n"
    )
    assert qualnames(source) == [
        "Shapes", "Shapes.Circle", "Shapes.Circle.area", "Widget", "Widget.draw", "Shapes.Net.Socket",
        "A", "A.B", "A.B.C",
    ]  # fmt: skip


def test_ruby_test_files_are_test_code():
    for path in ("spec/models/user_spec.rb", "test/models/user_test.rb", "lib/test_helper_test.rb"):
        assert is_test_path(path)
    assert not is_test_path("lib/contest.rb") and not is_test_path("app/models/latest.rb")
    assert is_test_path("src/Shapes/ShapeTest.php") and not is_test_path("src/Latest.php")  # PHPUnit's


def test_a_class_a_call_makes_is_named_by_its_constant():
    """``Point = Struct.new(:x, :y) do … end``: its methods are the struct's, not members
    of the class around it (where they numbered ``Outer.to_s#2``) nor functions."""
    source = (
        "class Outer\n  Point = Struct.new(:x, :y) do\n    def to_s; end\n  end\n  def to_s; end\nend\n"
        "Handler = Class.new(Base) { def call; end }\nHelpers = Module.new do\n  def help; end\nend\n"
        "At = Data.define(:time) do\n  def later; end\nend\n"
    )
    assert qualnames(source) == [
        "Outer", "Outer.Point", "Outer.Point.to_s", "Outer.to_s", "Handler", "Handler.call", "Helpers",
        "Helpers.help", "At", "At.later",
    ]  # fmt: skip


def test_a_class_a_call_makes_for_a_scoped_constant_is_named_as_a_scoped_class_is():
    """``RDoc::Markup::Heading = Struct.new :level, :text do … end`` (Ruby 3.1's
    rdoc/markup/heading.rb) made no class: its seven methods were top-level functions. It is
    named as ``class RDoc::Markup::Heading`` is, its scope looked up from the inside out."""
    source = (
        "module RDoc\n  class Markup; end\nend\n"
        "RDoc::Markup::Heading =\n  Struct.new :level, :text do\n  def self.to_label; end\n  def aref; end\nend\n"
        "module Net\n  HTTP::Get = Class.new(Base) { def call; end }\n  ::Top = Module.new do\n    def help; end\n  end\nend\n"
    )
    assert qualnames(source) == [
        "RDoc", "RDoc.Markup", "RDoc.Markup.Heading", "RDoc.Markup.Heading.to_label", "RDoc.Markup.Heading.aref",
        "Net", "Net.HTTP.Get", "Net.HTTP.Get.call", "Top", "Top.help",
    ]  # fmt: skip


def test_an_editors_file_variables_are_no_doc_and_a_one_line_class_is_signed_without_its_end():
    source = "# -*- coding: utf-8 -*-\nmodule Foo\n  class Error < StandardError; end\n  class Other < Error\n  end\nend\n"
    result = parse("ruby", source.encode(), path="lib/foo.rb")
    assert [(s.qualname, s.signature, s.docstring) for s in result.symbols] == [
        ("<module>", "", ""), ("Foo", "module Foo", ""), ("Foo.Error", "class Error < StandardError", ""),
        ("Foo.Other", "class Other < Error", ""),
    ]  # fmt: skip


def docs(source: str) -> dict[str, str]:
    return {s.qualname: s.docstring for s in parse("ruby", source.encode(), path="lib/a.rb").symbols[1:]}


def test_a_method_a_call_or_a_condition_wraps_is_documented_by_the_comments_above_them():
    """``private def initialize_clone`` (Ruby's ostruct.rb), ``ruby2_keywords def
    method_missing`` (delegate.rb), ``def except … end unless method_defined?(:except)``
    (Active Support's hash/except.rb) and a method first in ``unless … end`` (RuboCop's
    core_ext/string.rb) had no doc: the comments stand above the call or the condition."""
    source = (
        "class Hash\n  # Duplicates the table.\n  private def initialize_clone(orig); end\n\n"
        "  # Delegates.\n  ruby2_keywords def method_missing(m, *args); end\n\n"
        "  # Returns all but the keys.\n  def except(*keys)\n  end unless method_defined?(:except)\n\n"
        "  unless method_defined?(:blank?)\n    # Whether it is blank.\n    def blank?; end\n  end\n\n"
        "  if true\n    def undocumented; end\n  end\nend\n"
    )
    assert docs(source) == {
        "Hash": "", "Hash.initialize_clone": "Duplicates the table.", "Hash.method_missing": "Delegates.",
        "Hash.except": "Returns all but the keys.", "Hash.blank?": "Whether it is blank.", "Hash.undocumented": "",
    }  # fmt: skip


def test_a_doubled_hash_opens_a_comment_line_and_is_no_text_of_its_doc():
    """RDoc's ``##`` above a doc (Arel's ``##`` then ``# Create a LOWER() function``, 118
    docs of Debian's Rails, RuboCop and Ruby's stdlib) opened it with a line ``#``, Psych's
    ``###`` with ``##``; Rack's Lint writes each line of its spec ``## * +gets+ must …``:
    ``# * +gets+ must …``. A rule of hashes stays a rule."""
    source = (
        "class Node\n  ##\n  # Create a LOWER() function\n  def lower; end\n\n"
        "  ## * +gets+ must be called without arguments and return a string,\n"
        "  ##   or +nil+ on EOF.\n  def gets; end\n\n"
        "  ########\n  # Shared\n  ########\n\n  # The count.\n  def count; end\n\n"
        "  ###\n  # Dumps.\n  def dump; end\nend\n"
    )
    assert docs(source) == {
        "Node": "", "Node.lower": "Create a LOWER() function",
        "Node.gets": "* +gets+ must be called without arguments and return a string,\n  or +nil+ on EOF.",
        "Node.count": "The count.", "Node.dump": "Dumps.",
    }  # fmt: skip


def test_what_class_of_a_constant_defines_is_that_constants():
    """``class << IPSocket`` (Ruby 3.1's ipaddr.rb, resolv-replace.rb), ``class <<
    OptionParser`` (optparse/version.rb), ``class << Benchmark`` (Active Support 6.1's
    core_ext/benchmark.rb) define the constant's singleton methods, as ``def
    IPSocket.valid_v6?`` would: they were the enclosing scope's (``valid_v6?``, a top-level
    function), which a constant in a module is named under (``Net.HTTP.version_1_2``)."""
    source = (
        "class << IPSocket\n  private\n\n  def valid_v6?(addr); end\nend\n"
        "module Net\n  class HTTP\n    def version; end\n  end\n  class << HTTP\n    def version_1_2; end\n  end\nend\n"
    )
    assert qualnames(source) == ["IPSocket.valid_v6?", "Net", "Net.HTTP", "Net.HTTP.version", "Net.HTTP.version_1_2"]


def test_a_self_method_in_a_class_of_a_constant_is_that_constants():
    """``def self.d`` in ``class << HTTP`` is ``HTTP``'s, as one in ``class << self`` is its
    class's: it was the enclosing scope's (``Net.d``; ``d``, a top-level function)."""
    source = (
        "module Net\n  class HTTP; end\n  class << HTTP\n    def a; end\n    def self.d; end\n  end\nend\n"
        "class << Bar\n  def self.f; end\nend\nclass Foo\n  class << self\n    def self.e; end\n  end\nend\n"
    )
    assert qualnames(source) == ["Net", "Net.HTTP", "Net.HTTP.a", "Net.HTTP.d", "Bar.f", "Foo", "Foo.e"]


def test_a_word_alone_over_requires_is_no_files_doc():
    """Arel's nodes.rb titles its groups of requires ``# node``, ``# binary``: the first
    was the file's doc."""
    source = "# frozen_string_literal: true\n\n# node\nrequire \"arel/nodes/node\"\n\n# binary\nrequire \"arel/nodes/binary\"\n"
    assert parse("ruby", source.encode(), path="lib/arel/nodes.rb").symbols[0].docstring == ""


def test_rdocs_doubled_mark_opens_a_doc_that_a_blank_line_parts_from_its_definition():
    """RDoc's guide writes each doc ``##`` then ``# …`` then a blank line above its
    definition, as RDoc itself and RubyGems do (2,326 definitions of Ruby 3.1's standard
    library had no doc; ``RDoc::Markup::Heading``'s, under the file's magic comment, was the
    file's): the block is the definition's, as a ``/** … */`` block a blank line parts is.
    A plain comment set apart is still no doc, nor a block that opens by naming a subject
    of its own (``# :method: to_ary``, ``# :section: Visitor``)."""
    source = (
        "# frozen_string_literal: true\n##\n# A heading with a level\n\n"
        "RDoc::Markup::Heading = Struct.new :level do\n\n  ##\n  # An HTML-safe anchor.\n\n  def aref; end\n\n"
        "  ###\n  # Called when a map starts.\n\n  def start_mapping; end\n\n"
        "  # A plain comment.\n\n  def plain; end\n\n"
        "  ##\n  # :method: to_ary\n  # Returns an array.\n\n  def records; end\n\n"
        "  ##\n  # :section: Visitor\n\n  def start_accepting; end\n\n"
        "  ##\n  # Looks for :method: directives.\n\n  def parse_comment; end\nend\n"
    )
    result = parse("ruby", source.encode(), path="lib/rdoc/markup/heading.rb").symbols
    assert result[0].docstring == ""
    assert {s.qualname: s.docstring for s in result[1:]} == {
        "RDoc.Markup.Heading": "A heading with a level", "RDoc.Markup.Heading.aref": "An HTML-safe anchor.",
        "RDoc.Markup.Heading.start_mapping": "Called when a map starts.", "RDoc.Markup.Heading.plain": "",
        "RDoc.Markup.Heading.records": "", "RDoc.Markup.Heading.start_accepting": "",
        "RDoc.Markup.Heading.parse_comment": "Looks for :method: directives.",
    }  # fmt: skip


def test_what_rdocs_double_dash_hides_is_no_part_of_a_doc():
    """RDoc's reader hides a doc's lines from ``#--`` to ``#++`` (or to its end): a writer's
    notes under the doc (RDoc's ``#--`` then ``# TODO move to RDoc::Options``, 47 docs of Ruby
    3.1's and Rails'), a licence above a file's doc (net/protocol.rb's, which hid that doc,
    ``WARNING: This file is going to remove.``), as notes under a doc block are none of it.
    A comment all of which it hides is a plain comment, the doc of what is below it as any
    is, but the marks (Active Record's ``#--`` then ``# Must be called in a synchronize block.``)."""
    source = (
        "# frozen_string_literal: true\n#\n#--\n# Copyright (c) 1999-2004 Yukihiro Matsumoto\n#++\n#\n"
        "# WARNING: This file is going to remove.\n\nrequire 'socket'\n\n"
        "class Store\n  ##\n  # Removes legacy arguments.\n  #--\n  # TODO move to RDoc::Options\n\n  def delete_legacy_args; end\n\n"
        "  # Paths in the gem.\n  #--\n  # See also #require_paths\n  #++\n  # The default is lib.\n  def require_paths=(val); end\n\n"
        "  #--\n  # Must be called in a synchronize block.\n  def checkout_for_exclusive_access; end\nend\n"
    )
    result = parse("ruby", source.encode(), path="lib/net/protocol.rb").symbols
    assert {s.qualname: s.docstring for s in result} == {
        "<module>": "WARNING: This file is going to remove.", "Store": "",
        "Store.delete_legacy_args": "Removes legacy arguments.",
        "Store.require_paths=": "Paths in the gem.\nThe default is lib.",
        "Store.checkout_for_exclusive_access": "Must be called in a synchronize block.",
    }  # fmt: skip
