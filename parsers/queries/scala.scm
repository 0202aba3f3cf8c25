; Scala's types and members. A package is no part of a qualified name, as Java's is not;
; an ``object`` (a package object too) is of its own kind, so that a class and its
; companion object share their name (``Shape``, ``Shape.apply``).
(class_definition name: (_) @name) @definition.class
(object_definition name: (_) @name) @definition.object
(package_object name: (_) @name) @definition.object
(given_definition name: (_) @name) @definition.object
; An anonymous given is named by the type it gives (``given Ordering[Circle] with``), as
; the compiler names it by that type (``given_Ordering_Circle``).
(given_definition !name return_type: (_) @name) @definition.object
(trait_definition name: (_) @name) @definition.trait
(enum_definition name: (_) @name) @definition.enum
(function_definition name: (_) @name) @definition.function
(function_declaration name: (_) @name) @definition.function
(type_definition name: (_) @name) @definition.type
; An extension method is named by the type it extends (``Circle.diameter``), as Kotlin's is.
(extension_definition parameters: (parameters . (parameter type: (_) @receiver))
  body: (function_definition name: (_) @name) @definition.function)
(extension_definition parameters: (parameters . (parameter type: (_) @receiver))
  body: (template_body (function_definition name: (_) @name) @definition.function))
