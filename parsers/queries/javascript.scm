(class_declaration name: (identifier) @name) @definition.class
(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(method_definition name: (_) @name) @definition.method
(field_definition property: (property_identifier) @name value: [(arrow_function) (function_expression)]) @definition.method
; A field a call makes of a block of code: `onScroll = throttle(() => {…}, 100)`.
(field_definition property: (property_identifier) @name value: (call_expression arguments: (arguments [(arrow_function body: (statement_block)) (function_expression)] @_wrapped))) @definition.method
; A function bound to a name, in parentheses too: `export const isArrayLike = (<T>(x: any): x is
; ArrayLike<T> => …)`, `var wrap = (function (a) {…})`.
(lexical_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function) (parenthesized_expression [(arrow_function) (function_expression) (generator_function)])])) @definition.function
(variable_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function) (parenthesized_expression [(arrow_function) (function_expression) (generator_function)])])) @definition.function
