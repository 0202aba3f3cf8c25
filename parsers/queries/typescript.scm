(class_declaration name: (type_identifier) @name) @definition.class
(abstract_class_declaration name: (type_identifier) @name) @definition.class
; A class expression bound to a name with its type asserted or checked, as a function is below:
; effect's `export const Class: new<A>(…) => Readonly<A> = class extends Base {…} as any`.
(lexical_declaration (variable_declarator name: (identifier) @name value: [(as_expression (class)) (as_expression (as_expression (class) @_wrapped)) (satisfies_expression (class))])) @definition.class
(variable_declaration (variable_declarator name: (identifier) @name value: [(as_expression (class)) (as_expression (as_expression (class) @_wrapped)) (satisfies_expression (class))])) @definition.class
(interface_declaration name: (type_identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(type_alias_declaration name: (type_identifier) @name) @definition.type
(function_signature name: (identifier) @name) @definition.function
(method_signature name: (_) @name) @definition.method
(abstract_method_signature name: (_) @name) @definition.method
(public_field_definition name: (property_identifier) @name value: [(arrow_function) (function_expression)]) @definition.method
; A field a call makes of a block of code: `onScroll = throttle(() => {…}, 100)`.
(public_field_definition name: (property_identifier) @name value: (call_expression arguments: (arguments [(arrow_function body: (statement_block)) (function_expression)] @_wrapped))) @definition.method
; And one its type is checked or asserted of: SvelteKit's `export const load = (async ({ params })
; => {…}) satisfies PageServerLoad`, `const h = ((e) => {…}) as Handler` (or `as unknown as`);
; the function's parameters end its signature (@_wrapped). A function expression needs no
; parentheses: effect's `export const succeed: {…overloads} = function () {…} as any`.
(lexical_declaration (variable_declarator name: (identifier) @name value: [(satisfies_expression [(function_expression) (generator_function)] @_wrapped) (as_expression [(function_expression) (generator_function)] @_wrapped) (as_expression (as_expression [(function_expression) (generator_function)] @_wrapped)) (satisfies_expression (parenthesized_expression [(arrow_function) (function_expression) (generator_function)] @_wrapped)) (as_expression (parenthesized_expression [(arrow_function) (function_expression) (generator_function)] @_wrapped)) (as_expression (as_expression (parenthesized_expression [(arrow_function) (function_expression) (generator_function)] @_wrapped)))])) @definition.function
(variable_declaration (variable_declarator name: (identifier) @name value: [(satisfies_expression [(function_expression) (generator_function)] @_wrapped) (as_expression [(function_expression) (generator_function)] @_wrapped) (as_expression (as_expression [(function_expression) (generator_function)] @_wrapped)) (satisfies_expression (parenthesized_expression [(arrow_function) (function_expression) (generator_function)] @_wrapped)) (as_expression (parenthesized_expression [(arrow_function) (function_expression) (generator_function)] @_wrapped)) (as_expression (as_expression (parenthesized_expression [(arrow_function) (function_expression) (generator_function)] @_wrapped)))])) @definition.function
; The functions of an object literal so checked, bound to a name or the module's export:
; SvelteKit's `export const actions = { default: async (…) => {…} } satisfies Actions`
; (`actions.default`), a Cloudflare Worker's `export default { async fetch(request) {…} }
; satisfies ExportedHandler<Env>` (`fetch`).
(variable_declarator name: (identifier) @receiver value: [(satisfies_expression (object (method_definition name: (_) @name) @definition.method)) (as_expression (object (method_definition name: (_) @name) @definition.method))])
(variable_declarator name: (identifier) @receiver value: [(satisfies_expression (object (pair key: (_) @name value: [(function_expression) (arrow_function) (generator_function)]) @definition.method)) (as_expression (object (pair key: (_) @name value: [(function_expression) (arrow_function) (generator_function)]) @definition.method))])
(export_statement value: [(satisfies_expression (object (method_definition name: (_) @name) @definition.function)) (as_expression (object (method_definition name: (_) @name) @definition.function))])
(export_statement value: [(satisfies_expression (object (pair key: (_) @name value: [(function_expression) (arrow_function) (generator_function)]) @definition.function)) (as_expression (object (pair key: (_) @name value: [(function_expression) (arrow_function) (generator_function)]) @definition.function))])
(internal_module name: (_) @name) @namespace
(module name: (_) @name) @namespace
; The module's export as TypeScript writes CommonJS's `module.exports = …`: `export = function
; parse(…) {…}`, `export = class Cursor {…}`, `export = { a() {…} }`, read as that is.
(export_statement !value !declaration (class name: (_)? @name) @default) @definition.class
(export_statement !value !declaration [(function_expression name: (_)? @name) (generator_function name: (_)? @name) (arrow_function)] @default) @definition.function
(export_statement !value !declaration (object (method_definition name: (_) @name) @definition.function))
(export_statement !value !declaration (object (pair key: (_) @name value: [(function_expression) (arrow_function) (generator_function)]) @definition.function))
