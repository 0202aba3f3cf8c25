; Perl's subs and Perl 5.38's methods, named as written (``sub new``, ``sub Foo::Bar::new``),
; and a sub given to a glob (``*alias = sub {…}``); each under the package whose statement
; stands before it (``parsers/perl_packages.py``).
(subroutine_declaration_statement name: (bareword) @name) @definition.function
(method_declaration_statement name: (bareword) @name) @definition.method
(expression_statement
  (assignment_expression left: (glob (varname) @name) right: (anonymous_subroutine_expression))) @definition.function
