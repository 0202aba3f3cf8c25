; Kotlin's types and members. A package is no part of a qualified name, as Java's is not.
; ``interface``, ``enum class`` and ``object`` are declarations of one node kind or two,
; told apart by a keyword or their body; the more captures, the more specific.
(class_declaration name: (identifier) @name) @definition.class
(class_declaration "interface" @_interface name: (identifier) @name) @definition.interface
(class_declaration name: (identifier) @name (enum_class_body) @_enum) @definition.enum
(object_declaration name: (identifier) @name) @definition.class
(function_declaration name: (identifier) @name) @definition.function
; An extension function is named by the type it extends (``String.capitalized``), as a
; Go method is by its receiver: one file's ``fun Int.dp()`` and ``fun Float.dp()`` are two.
(function_declaration [(user_type) (nullable_type)] @receiver . name: (identifier) @name) @definition.function
(secondary_constructor "constructor" @name) @definition.method
; A property with accessors of its own is a member that runs code, as a C# property is.
(property_declaration (variable_declaration (identifier) @name) [(getter) (setter)]) @definition.method
(property_declaration [(user_type) (nullable_type)] @receiver (variable_declaration (identifier) @name) [(getter) (setter)]) @definition.method
(type_alias type: (identifier) @name) @definition.type
