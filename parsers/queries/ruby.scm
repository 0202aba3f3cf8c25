; Ruby's modules (mixins and namespaces: traits to recalld), classes and methods; ``def
; self.build`` and what ``class << self`` defines are the class's (``Shape.build``).
(module name: (_) @name) @definition.trait
(class name: (_) @name) @definition.class
(method name: (_) @name) @definition.function
(singleton_method name: (_) @name) @definition.function
; ``def Group.generate!`` is the named class's, as written (Redmine's test helpers give 18
; classes a ``generate!`` from one module: they were ``ObjectHelpers.generate!#2`` … ``#18``).
(singleton_method object: (constant) @receiver name: (_) @name) @definition.function
; What ``class << IPSocket`` defines is that class's, as ``def IPSocket.valid_v6?`` is (Ruby's
; ipaddr.rb, optparse/version.rb's ``class << OptionParser``: they were top-level functions);
; a ``def self.d`` there too, as one in ``class << self`` is its class's.
(singleton_class value: (constant) @receiver body: (body_statement
  [(method name: (_) @name) (singleton_method object: (self) name: (_) @name)] @definition.function))
; A class or module a call makes, named by the constant it is given to, its block its body
; (``Point = Struct.new(:x, :y) do … end``, ``Class.new(Base) { … }``, ``Data.define(:at)``).
; A scoped constant names one as ``class RDoc::Markup::Heading`` does (``RDoc::Markup::Heading =
; Struct.new(:level, :text) do … end``).
(assignment left: [(constant) (scope_resolution)] @name right: (call receiver: (constant) @_maker
  (#any-of? @_maker "Struct" "Class" "Data")
  method: (identifier) @_make (#any-of? @_make "new" "define") block: [(do_block) (block)])) @definition.class
(assignment left: [(constant) (scope_resolution)] @name right: (call receiver: (constant) @_maker
  (#eq? @_maker "Module")
  method: (identifier) @_make (#eq? @_make "new") block: [(do_block) (block)])) @definition.trait
; RSpec's example groups and examples, named by their titles as JavaScript's tests are: a
; group a class, an example a function; so are the tests of Rails' ``test "…" do`` and
; shoulda's ``should "…" do`` (the rest of a Rails application's tests made no memory).
(call method: (identifier) @_group (#any-of? @_group "describe" "context" "feature" "shared_examples" "shared_context")
  arguments: (argument_list . [(string) (constant) (scope_resolution)] @title) block: [(do_block) (block)]) @definition.class
(call method: (identifier) @_example (#any-of? @_example "it" "specify" "example" "scenario" "its" "test" "should")
  arguments: (argument_list . (string) @title) block: [(do_block) (block)]) @definition.function
