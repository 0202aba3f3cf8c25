; PHP's types, functions and methods. A namespace is no part of a qualified name, as a
; Java package is not (``Shape.draw`` in ``namespace App\Shapes;``).
(class_declaration name: (name) @name) @definition.class
(interface_declaration name: (name) @name) @definition.interface
(trait_declaration name: (name) @name) @definition.trait
(enum_declaration name: (name) @name) @definition.enum
(method_declaration name: (name) @name) @definition.method
(function_definition name: (name) @name) @definition.function
; Pest's tests, named by their titles as JavaScript's are: ``describe("sum", function ()
; {…})`` a class, the tests it holds its members; ``it("adds", fn () => …)`` and
; ``test("…", function () {…})->group("smoke")`` functions.
(function_call_expression function: (name) @_suite (#eq? @_suite "describe")
  arguments: (arguments . (argument [(string) (encapsed_string)] @name) . (argument [(anonymous_function) (arrow_function)] @_wrapped))) @definition.class
(function_call_expression function: (name) @_test (#any-of? @_test "it" "test")
  arguments: (arguments . (argument [(string) (encapsed_string)] @name) . (argument [(anonymous_function) (arrow_function)] @_wrapped))) @definition.function
