; C#'s types and members. A namespace is no part of a qualified name, as a Java package is
; not: ``Shape.Draw`` in ``namespace Sample.Shapes``, so that renaming a namespace renames
; no symbol.
(class_declaration name: (identifier) @name) @definition.class
(record_declaration name: (identifier) @name) @definition.class
; A record struct (``record struct Point(int X)``) is a struct, as C# makes it a value type.
(record_declaration "struct" @_struct name: (identifier) @name) @definition.struct
(struct_declaration name: (identifier) @name) @definition.struct
(interface_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(delegate_declaration name: (identifier) @name) @definition.type
(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.method
(destructor_declaration name: (identifier) @name) @definition.method
(property_declaration name: (identifier) @name) @definition.method
(indexer_declaration) @definition.method
(operator_declaration) @definition.method
(conversion_operator_declaration) @definition.method
; An interface's member implemented explicitly is named by its interface, as C# names it
; (``IEnumerable.GetEnumerator`` beside the class's own ``GetEnumerator``).
(method_declaration (explicit_interface_specifier (_) @receiver) name: (identifier) @name) @definition.method
(property_declaration (explicit_interface_specifier (_) @receiver) name: (identifier) @name) @definition.method
