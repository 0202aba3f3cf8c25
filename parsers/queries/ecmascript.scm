; Definitions JavaScript and TypeScript share beyond declarations: by assignment and in
; object literals. Read before javascript.scm and typescript.scm (LanguageSpec.shared_queries).
; A class expression bound to a name, `const Baz = class {…}`.
(lexical_declaration (variable_declarator name: (identifier) @name value: (class))) @definition.class
(variable_declaration (variable_declarator name: (identifier) @name value: (class))) @definition.class
; The module's own export when it is a class or a function: `module.exports = class
; Cursor {…}`, `module.exports = function (results) {…}` (a formatter, a loader), `export
; default class {…}`. One with no name of its own is named `default` (@default), as the
; language names it.
(expression_statement (assignment_expression left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports) right: (class name: (_)? @name) @default) (#eq? @_module "module") (#eq? @_exports "exports")) @definition.class
(expression_statement (assignment_expression left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports) right: [(function_expression name: (_)? @name) (generator_function name: (_)? @name) (arrow_function)] @default) (#eq? @_module "module") (#eq? @_exports "exports")) @definition.function
(export_statement value: (class !name) @definition.class @default)
(export_statement value: [(function_expression !name) (generator_function !name) (arrow_function)] @definition.function @default)
; A class assigned to a name the module exports: `exports.Parser = class {…}`.
(expression_statement (assignment_expression left: (member_expression object: (identifier) @_exports property: (property_identifier) @name) right: (class)) (#eq? @_exports "exports")) @definition.class
(expression_statement (assignment_expression left: (member_expression object: (member_expression object: (identifier) @_module property: (property_identifier) @_exports) property: (property_identifier) @name) right: (class)) (#eq? @_module "module") (#eq? @_exports "exports")) @definition.class
; Functions assigned to the module's exports: `exports.f = function`, `module.exports.f = () =>`,
; in parentheses too (`exports.isArrayLike = (function (x) {…})`, as TypeScript compiles one).
(expression_statement (assignment_expression left: (member_expression object: (identifier) @_exports property: (property_identifier) @name) right: [(function_expression) (arrow_function) (generator_function) (parenthesized_expression [(function_expression) (arrow_function) (generator_function)])]) (#eq? @_exports "exports")) @definition.function
(expression_statement (assignment_expression left: (member_expression object: (member_expression object: (identifier) @_module property: (property_identifier) @_exports) property: (property_identifier) @name) right: [(function_expression) (arrow_function) (generator_function) (parenthesized_expression [(function_expression) (arrow_function) (generator_function)])]) (#eq? @_module "module") (#eq? @_exports "exports")) @definition.function
; Methods assigned to a prototype or a constructor: `Foo.prototype.walk = function`, `Foo.create = () =>`.
(expression_statement (assignment_expression left: (member_expression object: (member_expression object: (identifier) @receiver property: (property_identifier) @_prototype) property: (property_identifier) @name) right: [(function_expression) (arrow_function) (generator_function)]) (#eq? @_prototype "prototype")) @definition.method
(expression_statement (assignment_expression left: (member_expression object: (identifier) @receiver property: (property_identifier) @name) right: [(function_expression) (arrow_function) (generator_function)]) (#not-eq? @receiver "exports") (#not-eq? @receiver "module")) @definition.method
; A function given several names in one chain of assignments, named by the first: Express's
; aliases `req.get = req.header = function header(name) {…}`, its Router's `var proto =
; module.exports = function (options) {…}` (no symbol before, and what they hold was the file's).
(expression_statement (assignment_expression left: (member_expression object: (identifier) @receiver property: (property_identifier) @name) right: (assignment_expression right: [(function_expression) (arrow_function) (generator_function)] @_wrapped)) (#not-eq? @receiver "exports") (#not-eq? @receiver "module")) @definition.method
(variable_declarator name: (identifier) @name value: (assignment_expression right: [(function_expression) (arrow_function) (generator_function)] @_wrapped)) @definition.function
; So is a prototype's, EventEmitter's `E.prototype.off = E.prototype.removeListener = function (…) {…}`.
(expression_statement (assignment_expression left: (member_expression object: (member_expression object: (identifier) @receiver property: (property_identifier) @_prototype) property: (property_identifier) @name) right: (assignment_expression right: [(function_expression) (arrow_function) (generator_function)] @_wrapped)) (#eq? @_prototype "prototype")) @definition.method
; And to a namespace's member: a jQuery plugin's `$.fn.tooltip = function (options) {…}`,
; `App.views.render = …` (`$.fn.tooltip`, `App.views.render`).
(expression_statement (assignment_expression left: (member_expression object: (member_expression object: (identifier) @_namespace property: (property_identifier)) @receiver property: (property_identifier) @name) right: [(function_expression) (arrow_function) (generator_function)]) (#not-eq? @_namespace "exports") (#not-eq? @_namespace "module")) @definition.method
; A name whose prototype the file uses, a constructor's (parsers/extract.py makes its
; function a class): `Foo.prototype = Object.create(Base.prototype)`, `Foo.prototype.x = 1`.
(member_expression object: (identifier) @_prototyped property: (property_identifier) @_prototype (#eq? @_prototype "prototype"))
; Methods given to a prototype in one object, as code before classes wrote them:
; `Object.assign(Foo.prototype, Base.prototype, { walk: function () {…}, run() {…} })`
; (underscore's and jQuery's `_.extend`, `$.extend`, a `mixin` alike),
; `Foo.prototype = { walk() {…} }`, `Foo.prototype = Object.assign(Object.create(Base.prototype), {…})`;
; and one a closure returns (`walk: function () { const v = new V(); return function walk() {…}; }()`).
(call_expression function: (member_expression object: (identifier) @_object property: (property_identifier) @_assign) arguments: (arguments . (member_expression object: (identifier) @receiver property: (property_identifier) @_prototype) (object (pair key: (_) @name value: [(function_expression) (arrow_function) (generator_function) (call_expression function: [(function_expression) (parenthesized_expression (function_expression))])]) @definition.method)) (#match? @_assign "^(assign|extend|mixin)$") (#eq? @_prototype "prototype"))
(call_expression function: (member_expression object: (identifier) @_object property: (property_identifier) @_assign) arguments: (arguments . (member_expression object: (identifier) @receiver property: (property_identifier) @_prototype) (object (method_definition name: (_) @name) @definition.method)) (#match? @_assign "^(assign|extend|mixin)$") (#eq? @_prototype "prototype"))
(assignment_expression left: (member_expression object: (identifier) @receiver property: (property_identifier) @_prototype) right: (object (pair key: (_) @name value: [(function_expression) (arrow_function) (generator_function) (call_expression function: [(function_expression) (parenthesized_expression (function_expression))])]) @definition.method) (#eq? @_prototype "prototype"))
(assignment_expression left: (member_expression object: (identifier) @receiver property: (property_identifier) @_prototype) right: (object (method_definition name: (_) @name) @definition.method) (#eq? @_prototype "prototype"))
(assignment_expression left: (member_expression object: (identifier) @receiver property: (property_identifier) @_prototype) right: (call_expression function: (member_expression object: (identifier) @_object property: (property_identifier) @_assign) arguments: (arguments (object (pair key: (_) @name value: [(function_expression) (arrow_function) (generator_function) (call_expression function: [(function_expression) (parenthesized_expression (function_expression))])]) @definition.method))) (#eq? @_prototype "prototype") (#match? @_assign "^(assign|extend|mixin)$"))
(assignment_expression left: (member_expression object: (identifier) @receiver property: (property_identifier) @_prototype) right: (call_expression function: (member_expression object: (identifier) @_object property: (property_identifier) @_assign) arguments: (arguments (object (method_definition name: (_) @name) @definition.method))) (#eq? @_prototype "prototype") (#match? @_assign "^(assign|extend|mixin)$"))
; And to a constructor itself, its static methods: `Object.assign(Foo, { create: function () {…} })`.
(call_expression function: (member_expression object: (identifier) @_object property: (property_identifier) @_assign) arguments: (arguments . (identifier) @receiver (object (pair key: (_) @name value: [(function_expression) (arrow_function) (generator_function) (call_expression function: [(function_expression) (parenthesized_expression (function_expression))])]) @definition.method)) (#match? @_assign "^(assign|extend|mixin)$") (#not-eq? @receiver "exports") (#not-eq? @receiver "module"))
(call_expression function: (member_expression object: (identifier) @_object property: (property_identifier) @_assign) arguments: (arguments . (identifier) @receiver (object (method_definition name: (_) @name) @definition.method)) (#match? @_assign "^(assign|extend|mixin)$") (#not-eq? @receiver "exports") (#not-eq? @receiver "module"))
; What jQuery extends itself with, one object (`jQuery.extend({ ajax: function (…) {…} })`,
; `jQuery.fn.extend({ show() {…} })`): `jQuery.ajax`, `jQuery.fn.show`. With more than one
; argument, `extend` copies into its first (above).
(expression_statement (call_expression function: (member_expression object: [(identifier) (member_expression object: (identifier) property: (property_identifier))] @receiver property: (property_identifier) @_extend) arguments: (arguments . (object (pair key: (_) @name value: [(function_expression) (arrow_function) (generator_function)]) @definition.method) .)) (#eq? @_extend "extend"))
(expression_statement (call_expression function: (member_expression object: [(identifier) (member_expression object: (identifier) property: (property_identifier))] @receiver property: (property_identifier) @_extend) arguments: (arguments . (object (method_definition name: (_) @name) @definition.method) .)) (#eq? @_extend "extend"))
; A class an `extend` of a class makes of one object of members, as Backbone's, Ember's and
; Vue 2's (`var TodoView = Backbone.View.extend({ render: function () {…} })`): `TodoView`,
; `TodoView.render`. What `$.extend({}, defaults, …)` makes is a value's.
(_ (variable_declarator name: (identifier) @name value: (call_expression function: (member_expression object: (_) @_base property: (property_identifier) @_extend) arguments: (arguments . (object) @_wrapped))) (#eq? @_extend "extend") (#match? @_base "(^|[.])[A-Z][A-Za-z0-9_$]*$")) @definition.class
(variable_declarator value: (call_expression function: (member_expression object: (_) @_base property: (property_identifier) @_extend) arguments: (arguments . (object (pair key: (_) @name value: [(function_expression) (arrow_function) (generator_function)]) @definition.method))) (#eq? @_extend "extend") (#match? @_base "(^|[.])[A-Z][A-Za-z0-9_$]*$"))
; Methods a constructor gives each object in its own body: `function Renderer(canvas) {
; this.render = function (scene) {…}; }` (three.js's renderers), `var Loader = function () {…}`,
; a class's `constructor() { this.play = () => {…}; }`: `Renderer.render`, `Player.play`.
(function_declaration body: (statement_block (expression_statement (assignment_expression left: (member_expression object: (this) @_this property: (property_identifier) @name) right: [(function_expression) (arrow_function) (generator_function)])) @definition.method))
(variable_declarator value: (function_expression body: (statement_block (expression_statement (assignment_expression left: (member_expression object: (this) @_this property: (property_identifier) @name) right: [(function_expression) (arrow_function) (generator_function)])) @definition.method)))
(method_definition name: (property_identifier) @_constructor body: (statement_block (expression_statement (assignment_expression left: (member_expression object: (this) @_this property: (property_identifier) @name) right: [(function_expression) (arrow_function) (generator_function)])) @definition.method) (#eq? @_constructor "constructor"))
; The functions of an object literal a name is bound to (`const api = { f() {} }`: api.f),
; or that is the module's export (`module.exports = { create() {} }`, `export default {…}`).
(variable_declarator name: (identifier) @receiver value: (object (method_definition name: (_) @name) @definition.method))
(variable_declarator name: (identifier) @receiver value: (object (pair key: (_) @name value: [(function_expression) (arrow_function) (generator_function)]) @definition.method))
; And of an object within it, named by its key too (`const api = { users: { list() {} } }`: api.users.list).
(variable_declarator name: (identifier) @receiver value: (object (pair key: (property_identifier) @_field value: (object (method_definition name: (_) @name) @definition.method))))
(variable_declarator name: (identifier) @receiver value: (object (pair key: (property_identifier) @_field value: (object (pair key: (_) @name value: [(function_expression) (arrow_function) (generator_function)]) @definition.method))))
(expression_statement (assignment_expression left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports) right: (object (method_definition name: (_) @name) @definition.function)) (#eq? @_module "module") (#eq? @_exports "exports"))
(expression_statement (assignment_expression left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports) right: (object (pair key: (_) @name value: [(function_expression) (arrow_function) (generator_function)]) @definition.function)) (#eq? @_module "module") (#eq? @_exports "exports"))
(export_statement value: (object (method_definition name: (_) @name) @definition.function))
(export_statement value: (object (pair key: (_) @name value: [(function_expression) (arrow_function) (generator_function)]) @definition.function))
; A Vue component's (its options object exported, `.vue` or `.js`): the functions of its
; `methods` and `computed` are its own, as its `data()` and `mounted()` are; a watcher is
; named by what it watches, most often one of those (`watch.value`).
(export_statement value: (object (pair key: (property_identifier) @_options value: (object (method_definition name: (_) @name) @definition.function))) (#match? @_options "^(methods|computed)$"))
(export_statement value: (object (pair key: (property_identifier) @_options value: (object (pair key: (_) @name value: [(function_expression) (arrow_function) (generator_function)]) @definition.function))) (#match? @_options "^(methods|computed)$"))
(export_statement value: (object (pair key: (property_identifier) @receiver value: (object (method_definition name: (_) @name) @definition.method))) (#eq? @receiver "watch"))
(export_statement value: (object (pair key: (property_identifier) @receiver value: (object (pair key: (_) @name value: [(function_expression) (arrow_function) (generator_function)]) @definition.method))) (#eq? @receiver "watch"))
; A computed property written as its getter and setter, and a watcher as its handler and
; options, are one function of the name (`computed: { model: { get() {…}, set(v) {…} } }`:
; `model`; `watch: { value: { handler(v) {…}, deep: true } }`: `watch.value`).
(export_statement value: (object (pair key: (property_identifier) @_options value: (object (pair key: (_) @name value: (object [(method_definition name: (property_identifier) @_accessor) (pair key: (property_identifier) @_accessor value: [(function_expression) (arrow_function) (generator_function)])] @_wrapped)) @definition.function))) (#eq? @_options "computed") (#match? @_accessor "^(get|set)$"))
(export_statement value: (object (pair key: (property_identifier) @receiver value: (object (pair key: (_) @name value: (object [(method_definition name: (property_identifier) @_accessor) (pair key: (property_identifier) @_accessor value: [(function_expression) (arrow_function) (generator_function)])] @_wrapped)) @definition.method))) (#eq? @receiver "watch") (#eq? @_accessor "handler"))
; A prop whose default or validator is a function (`props: { size: { type: Number, default() {…},
; validator(v) {…} } }`) is one function of the prop, named as a watcher is (`props.size`):
; `size` itself is the prop's value, no function.
(export_statement value: (object (pair key: (property_identifier) @receiver value: (object (pair key: (_) @name value: (object [(method_definition name: (property_identifier) @_accessor) (pair key: (property_identifier) @_accessor value: [(function_expression) (arrow_function) (generator_function)])] @_wrapped)) @definition.method))) (#eq? @receiver "props") (#match? @_accessor "^(default|validator)$"))
; The same of one object a call makes the module's export of: Vue's `export default
; defineComponent({ setup() {…}, methods: { save() {…} } })` (`setup`, `save`), `Vue.extend({…})`.
(export_statement value: (call_expression arguments: (arguments . (object (method_definition name: (_) @name) @definition.function) .)))
(export_statement value: (call_expression arguments: (arguments . (object (pair key: (_) @name value: [(function_expression) (arrow_function) (generator_function)]) @definition.function) .)))
(export_statement value: (call_expression arguments: (arguments . (object (pair key: (property_identifier) @_options value: (object (method_definition name: (_) @name) @definition.function))) .)) (#match? @_options "^(methods|computed)$"))
(export_statement value: (call_expression arguments: (arguments . (object (pair key: (property_identifier) @_options value: (object (pair key: (_) @name value: [(function_expression) (arrow_function) (generator_function)]) @definition.function))) .)) (#match? @_options "^(methods|computed)$"))
(export_statement value: (call_expression arguments: (arguments . (object (pair key: (property_identifier) @receiver value: (object (method_definition name: (_) @name) @definition.method))) .)) (#eq? @receiver "watch"))
(export_statement value: (call_expression arguments: (arguments . (object (pair key: (property_identifier) @receiver value: (object (pair key: (_) @name value: [(function_expression) (arrow_function) (generator_function)]) @definition.method))) .)) (#eq? @receiver "watch"))
(export_statement value: (call_expression arguments: (arguments . (object (pair key: (property_identifier) @_options value: (object (pair key: (_) @name value: (object [(method_definition name: (property_identifier) @_accessor) (pair key: (property_identifier) @_accessor value: [(function_expression) (arrow_function) (generator_function)])] @_wrapped)) @definition.function))) .)) (#eq? @_options "computed") (#match? @_accessor "^(get|set)$"))
(export_statement value: (call_expression arguments: (arguments . (object (pair key: (property_identifier) @receiver value: (object (pair key: (_) @name value: (object [(method_definition name: (property_identifier) @_accessor) (pair key: (property_identifier) @_accessor value: [(function_expression) (arrow_function) (generator_function)])] @_wrapped)) @definition.method))) .)) (#eq? @receiver "watch") (#eq? @_accessor "handler"))
(export_statement value: (call_expression arguments: (arguments . (object (pair key: (property_identifier) @receiver value: (object (pair key: (_) @name value: (object [(method_definition name: (property_identifier) @_accessor) (pair key: (property_identifier) @_accessor value: [(function_expression) (arrow_function) (generator_function)])] @_wrapped)) @definition.method))) .)) (#eq? @receiver "props") (#match? @_accessor "^(default|validator)$"))
; Functions a factory publishes by reference in the object it returns (the revealing
; module pattern: three.js's WebGL backend, redux's createStore): `function WebGLState(gl) {
; function enable(id) {…} … return { enable: enable, reset }; }` gives `WebGLState.enable`,
; `WebGLState.reset`. The property names the member (`return { init: setUp }`: `init`).
; Only a return in the factory's own body counts, and only functions declared there
; (parsers/extract.py: _mark_published); not a callback's return.
(return_statement (object (shorthand_property_identifier) @_published)) @_returns
(return_statement (object (pair key: (property_identifier) @_key value: (identifier) @_published))) @_returns
; And the functions written in that object (an eslint rule's `create(context) { return {
; Program(node) {…}, "CallExpression:exit"(node) {…} }; }`: `create.Program`,
; `create."CallExpression:exit"`), under the same rule (@_returned).
(return_statement (object (method_definition name: [(property_identifier) (string)] @name) @definition.method)) @_returned
(return_statement (object (pair key: [(property_identifier) (string)] @name value: [(function_expression) (arrow_function) (generator_function)]) @definition.method)) @_returned
; A test named by its title (Jest, Mocha, Vitest, Jasmine, node:test, Deno, Playwright), as
; written: a suite (`describe("Router", () => {…})`, `test.describe(…)`) is a class, its
; tests and what it declares its members, as a Python test class's methods are; a test
; (`it("routes", …)`, `test.each(…)("adds %i", …)`, `it.effect(…)`) is a function.
(expression_statement (call_expression function: (_) @_suite arguments: (arguments . [(string) (template_string)] @name . [(arrow_function) (function_expression)] @_wrapped)) (#match? @_suite "^((test|Deno|t)\\.)?([fx]?describe|suite)\\b")) @definition.class
(expression_statement (call_expression function: (_) @_test arguments: (arguments . [(string) (template_string)] @name . [(arrow_function) (function_expression) (generator_function)] @_wrapped)) (#match? @_test "^((Deno|t)\\.)?(it|test|specify|bench|[fx](it|test))\\b") (#not-match? @_test "^test\\.describe\\b")) @definition.function
; What a test's callback or a hook's declares (`beforeEach(…)`) is its own, as a
; function's body's is: zod's tests declare `type inp = …` in each test, which were the
; file's `inp`, `inp#2`, … (parsers/extract.py: _place). A suite's is the suite's.
(call_expression function: (_) @_test arguments: (arguments [(arrow_function) (function_expression) (generator_function)] @_local) (#match? @_test "^((Deno|t)\\.)?(it|test|specify|bench|[fx](it|test)|x?(before|after)(Each|All)?)\\b") (#not-match? @_test "^test\\.describe\\b"))
; What the function of an object's property declares is its own: jQuery's `jQuery.extend({
; ajax: function (url, options) { var jqXHR = {…}; function done(…) {…} … } })` gave the
; file a `done` and `jqXHR.abort`, ajax's locals.
(pair value: [(function_expression) (arrow_function) (generator_function)] @_local)
(object (method_definition) @_local)
; A module a function called at once makes, bound to a name or the module's export of a
; name: `var Cache = (function () { function get(key) {…} return { get: get }; })();`
; publishes `Cache.get`, so does `exports.Cache = (function () {…}())` (either way of
; calling it).
(variable_declarator name: (identifier) @_module value: [(call_expression function: (parenthesized_expression [(function_expression) (arrow_function)] @_called)) (parenthesized_expression (call_expression function: [(function_expression) (arrow_function)] @_called))])
(assignment_expression left: (member_expression object: (identifier) @_exports property: (property_identifier) @_module) right: [(call_expression function: (parenthesized_expression [(function_expression) (arrow_function)] @_called)) (parenthesized_expression (call_expression function: [(function_expression) (arrow_function)] @_called))] (#eq? @_exports "exports"))
; And the function it returns, when it returns one of its own by name: that name's, as
; rxjs's `export const ajax = (() => { const create = (…) => {…}; … return create; })()`
; is `ajax` (it was the file's `create`), and its CommonJS build's `exports.ajax = (function
; () {…})()`. A class's constructor so returned keeps its name, which its prototype's
; methods are named by (parsers/definitions.py: _mark_published).
(variable_declarator value: [(call_expression function: (parenthesized_expression [(function_expression body: (statement_block (return_statement (identifier) @_returned_name))) (arrow_function body: (statement_block (return_statement (identifier) @_returned_name)))] @_returning)) (parenthesized_expression (call_expression function: [(function_expression body: (statement_block (return_statement (identifier) @_returned_name))) (arrow_function body: (statement_block (return_statement (identifier) @_returned_name)))] @_returning))])
(assignment_expression left: (member_expression object: (identifier) @_exports) right: [(call_expression function: (parenthesized_expression [(function_expression body: (statement_block (return_statement (identifier) @_returned_name))) (arrow_function body: (statement_block (return_statement (identifier) @_returned_name)))] @_returning)) (parenthesized_expression (call_expression function: [(function_expression body: (statement_block (return_statement (identifier) @_returned_name))) (arrow_function body: (statement_block (return_statement (identifier) @_returned_name)))] @_returning))] (#eq? @_exports "exports"))
; A component a call makes of a function, bound to a name that starts with a capital:
; React's `const Button = forwardRef((props, ref) => {…})`, `memo(function Row() {…})`,
; `memo(forwardRef(…))`, mobx's `observer(() => …)`. The function's parameters end its
; signature (@_wrapped). An upper-case name bound to a call is a constant's (`const ALL =
; list(() => …)`); a lower-case one, below.
(lexical_declaration (variable_declarator name: (identifier) @name value: [(call_expression arguments: (arguments [(arrow_function) (function_expression)] @_wrapped)) (parenthesized_expression (call_expression arguments: (arguments [(arrow_function) (function_expression)] @_wrapped)))]) (#match? @name "^[A-Z][a-z]")) @definition.function
(variable_declaration (variable_declarator name: (identifier) @name value: [(call_expression arguments: (arguments [(arrow_function) (function_expression)] @_wrapped)) (parenthesized_expression (call_expression arguments: (arguments [(arrow_function) (function_expression)] @_wrapped)))]) (#match? @name "^[A-Z][a-z]")) @definition.function
(lexical_declaration (variable_declarator name: (identifier) @name value: [(call_expression arguments: (arguments (call_expression arguments: (arguments [(arrow_function) (function_expression)] @_wrapped)))) (parenthesized_expression (call_expression arguments: (arguments (call_expression arguments: (arguments [(arrow_function) (function_expression)] @_wrapped)))))]) (#match? @name "^[A-Z][a-z]")) @definition.function
(variable_declaration (variable_declarator name: (identifier) @name value: [(call_expression arguments: (arguments (call_expression arguments: (arguments [(arrow_function) (function_expression)] @_wrapped)))) (parenthesized_expression (call_expression arguments: (arguments (call_expression arguments: (arguments [(arrow_function) (function_expression)] @_wrapped)))))]) (#match? @name "^[A-Z][a-z]")) @definition.function
; Lower-case names bound to a call that makes a function of a block of code:
; redux-toolkit's `export const fetchUser = createAsyncThunk('user/fetch', async (id) => {…})`,
; `const onResize = debounce(function () {…}, 100)`, zustand's `const useStore = create((set) => {…})`.
; An expression (`const doubled = items.map((x) => 2 * x)`) is a value's. Either kind of call
; may stand in parentheses (three.js's `export const cameraFar = /*@__PURE__*/ ( Fn(…) )`):
; the function's own locals were taken for the file's functions.
(_ (variable_declarator name: (identifier) @name value: [(call_expression arguments: (arguments [(arrow_function body: (statement_block)) (function_expression) (generator_function)] @_wrapped)) (parenthesized_expression (call_expression arguments: (arguments [(arrow_function body: (statement_block)) (function_expression) (generator_function)] @_wrapped)))]) (#match? @name "^[a-z_$]")) @definition.function
(_ (variable_declarator name: (identifier) @name value: [(call_expression arguments: (arguments (call_expression arguments: (arguments [(arrow_function body: (statement_block)) (function_expression) (generator_function)] @_wrapped)))) (parenthesized_expression (call_expression arguments: (arguments (call_expression arguments: (arguments [(arrow_function body: (statement_block)) (function_expression) (generator_function)] @_wrapped)))))]) (#match? @name "^[a-z_$]")) @definition.function
; A component a call makes of a function that is the module's export: `export default
; memo(function Card() {…})` is `Card`, `export default observer(() => …)` `default`.
(export_statement value: (call_expression arguments: (arguments [(function_expression name: (_)? @name) (arrow_function)] @_wrapped @default))) @definition.function
(export_statement value: (call_expression arguments: (arguments (call_expression arguments: (arguments [(function_expression name: (_)? @name) (arrow_function)] @_wrapped @default))))) @definition.function
; Declarations both grammars write alike: functions, generators, methods, and a function
; bound to a name, in parentheses too: `export const isArrayLike = (<T>(x: any): x is
; ArrayLike<T> => …)`, `var wrap = (function (a) {…})`.
(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(method_definition name: (_) @name) @definition.method
(lexical_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function) (parenthesized_expression [(arrow_function) (function_expression) (generator_function)])])) @definition.function
(variable_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function) (parenthesized_expression [(arrow_function) (function_expression) (generator_function)])])) @definition.function
