(class_specifier name: (_) @name body: (_)) @definition.class
; A template is its declaration whole (``template <typename T> class Stack``), its doc above it.
(template_declaration (class_specifier name: (_) @name body: (_) @_body)) @definition.class
(template_declaration (struct_specifier name: (_) @name body: (_) @_body)) @definition.struct
(template_declaration (union_specifier name: (_) @name body: (_) @_body)) @definition.struct
(template_declaration (function_definition declarator: (_) @_declarator) @_body) @definition.function
(template_declaration (declaration declarator: (_) @_declarator) @_body) @definition.function
(template_declaration (alias_declaration name: (_) @name) @_body) @definition.type
(declaration declarator: (reference_declarator) @_declarator) @definition.function
; A conversion operator declared (``operator bool() const;``; in a class the grammar reads
; it as a declaration, not a field's).
(declaration declarator: (operator_cast) @_declarator) @definition.function
(field_declaration declarator: (operator_cast) @_declarator) @definition.function
; A member function declared in its class (its definition may be elsewhere: ``Widget::draw``).
(field_declaration declarator: [(function_declarator) (pointer_declarator) (reference_declarator)] @_declarator) @definition.function
(alias_declaration name: (type_identifier) @name) @definition.type
(concept_definition name: (identifier) @name) @definition.type
(namespace_definition name: (_) @name) @namespace
