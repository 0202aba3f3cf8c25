; Lua's functions, named as written: ``function M.setup``, ``local function helper``, a
; method ``function Client:request`` (the table its receiver), and a function given to a
; name or a table's field (``M.handler = function(err, result) … end``).
(function_declaration name: [(identifier) (dot_index_expression)] @name) @definition.function
(function_declaration name: (method_index_expression table: (_) @receiver method: (identifier) @name)) @definition.method
(assignment_statement
  (variable_list . name: [(identifier) (dot_index_expression)] @name)
  (expression_list . value: (function_definition))) @definition.function
