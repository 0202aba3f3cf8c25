; Definitions recalld turns into memories. @definition.<kind> marks the node whose
; lines and source make the memory; @name its name. A definition wrapped by another
; captured definition (a decorated def) is folded into the wrapper.
(class_definition name: (identifier) @name) @definition.class
(function_definition name: (identifier) @name) @definition.function
(decorated_definition definition: (class_definition name: (identifier) @name)) @definition.class
(decorated_definition definition: (function_definition name: (identifier) @name)) @definition.function
; PEP 695's type statement (Python 3.12): ``type Vector = list[float]``, ``type Pair[T] = …``.
(type_alias_statement left: (type [(identifier) @name (generic_type (identifier) @name)])) @definition.type
