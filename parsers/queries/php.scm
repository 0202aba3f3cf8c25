; PHP's types, functions and methods. A namespace is no part of a qualified name, as a
; Java package is not (``Shape.draw`` in ``namespace App\Shapes;``).
(class_declaration name: (name) @name) @definition.class
(interface_declaration name: (name) @name) @definition.interface
(trait_declaration name: (name) @name) @definition.trait
(enum_declaration name: (name) @name) @definition.enum
(method_declaration name: (name) @name) @definition.method
(function_definition name: (name) @name) @definition.function
