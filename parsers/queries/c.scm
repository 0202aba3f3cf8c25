; C's definitions, which C++'s grammar reads too (cpp.scm follows these for C++). A
; function's name is read from its declarator (parsers/declarators.py): ``*`` and ``&``
; may stand between its type and its name, and a function pointer is no function.
(function_definition declarator: (_) @_declarator) @definition.function
(declaration declarator: [(function_declarator) (pointer_declarator)] @_declarator) @definition.function
(preproc_function_def name: (identifier) @name) @definition.function
(struct_specifier name: (_) @name body: (_)) @definition.struct
(union_specifier name: (_) @name body: (_)) @definition.struct
(enum_specifier name: (_) @name body: (_)) @definition.enum
; ``typedef struct {…} point;``: the struct, named by its typedef (the body's capture makes
; this pattern win over the plain typedef's below).
(type_definition type: (struct_specifier body: (_) @_body) declarator: (_) @_declarator) @definition.struct
(type_definition type: (union_specifier body: (_) @_body) declarator: (_) @_declarator) @definition.struct
(type_definition type: (enum_specifier body: (_) @_body) declarator: (_) @_declarator) @definition.enum
(type_definition declarator: (_) @_declarator) @definition.type
