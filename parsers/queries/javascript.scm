(class_declaration name: (identifier) @name) @definition.class
(field_definition property: (property_identifier) @name value: [(arrow_function) (function_expression)]) @definition.method
; A field a call makes of a block of code: `onScroll = throttle(() => {…}, 100)`.
(field_definition property: (property_identifier) @name value: (call_expression arguments: (arguments [(arrow_function body: (statement_block)) (function_expression)] @_wrapped))) @definition.method
