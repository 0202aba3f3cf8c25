; Swift's types and members. ``class``, ``struct``, ``enum``, ``actor`` and ``extension``
; are one node kind told apart by their keyword. An extension is no type of its own: what
; it declares is the extended type's (``Shape.describe``, ``Array.total``), however many
; extensions of it a file holds.
(class_declaration declaration_kind: "class" name: (type_identifier) @name) @definition.class
(class_declaration declaration_kind: "actor" name: (type_identifier) @name) @definition.class
(class_declaration declaration_kind: "struct" name: (type_identifier) @name) @definition.struct
(class_declaration declaration_kind: "enum" name: (type_identifier) @name) @definition.enum
(class_declaration declaration_kind: "extension" name: (user_type) @name) @extension
(protocol_declaration name: (type_identifier) @name) @definition.interface
(function_declaration name: (simple_identifier) @name) @definition.function
(protocol_function_declaration name: (simple_identifier) @name) @definition.method
; Named by their keyword or operator (``Shape.init``, ``Shape.deinit``, ``Shape.subscript``,
; ``Vector.+``): ``written_names.operator_name``.
(function_declaration) @definition.function
(init_declaration) @definition.method
(deinit_declaration) @definition.method
(subscript_declaration) @definition.method
; A computed property runs code, as a C# property does; a protocol's property is a
; requirement, as an interface's method is.
(property_declaration name: (pattern bound_identifier: (simple_identifier) @name) computed_value: (computed_property)) @definition.method
(protocol_property_declaration name: (pattern bound_identifier: (simple_identifier) @name)) @definition.method
(typealias_declaration name: (type_identifier) @name) @definition.type
