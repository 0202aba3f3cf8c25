; Lua's functions, named as written: ``function M.setup``, ``local function helper``, a
; method ``function Client:request`` (the table its receiver), and a function given to a
; name or a table's field (``M.handler = function(err, result) … end``).
(function_declaration name: [(identifier) (dot_index_expression)] @name) @definition.function
(function_declaration name: (method_index_expression table: (_) @receiver method: (identifier) @name)) @definition.method
(assignment_statement
  (variable_list . name: [(identifier) (dot_index_expression)] @name)
  (expression_list . value: (function_definition))) @definition.function
; A function in a table written in braces and given to a name is that table's method
; (``M.handlers = { show = function(ns, bufnr) … end }``: ``M.handlers.show``).
(assignment_statement
  (variable_list . name: [(identifier) (dot_index_expression)] @receiver)
  (expression_list . value: (table_constructor
    (field name: (identifier) @name value: (function_definition)) @definition.function)))
; So is a function in a table within such a table, two or three deep, named by the fields
; on the way (nmap's ``LCP = { ConfigOption = { new = function(self, …) … end } }``:
; ``LCP.ConfigOption.new``).
(assignment_statement
  (variable_list . name: [(identifier) (dot_index_expression)] @receiver)
  (expression_list . value: (table_constructor
    (field name: (identifier) @_field value: (table_constructor
      (field name: (identifier) @name value: (function_definition)) @definition.function)))))
(assignment_statement
  (variable_list . name: [(identifier) (dot_index_expression)] @receiver)
  (expression_list . value: (table_constructor
    (field name: (identifier) @_field value: (table_constructor
      (field name: (identifier) @_field value: (table_constructor
        (field name: (identifier) @name value: (function_definition)) @definition.function)))))))
; A module that returns its table written in braces (``return { setup = function(opts) … end }``):
; its functions are the file's own, those of a table in it that table's.
(chunk (return_statement (expression_list . (table_constructor
  (field name: (identifier) @name value: (function_definition)) @definition.function))))
(chunk (return_statement (expression_list . (table_constructor
  (field name: (identifier) @receiver value: (table_constructor
    (field name: (identifier) @name value: (function_definition)) @definition.function))))))
; A metatable's functions are its table's (``setmetatable(M, { __call = function() … end })``:
; ``M.__call``; ``vim.env = setmetatable({}, { __index = function(_, k) … end })``: ``vim.env.__index``).
(function_call name: (identifier) @_set (#eq? @_set "setmetatable")
  arguments: (arguments . [(identifier) (dot_index_expression)] @receiver
    . (table_constructor (field name: (identifier) @name value: (function_definition)) @definition.function)))
(assignment_statement
  (variable_list . name: [(identifier) (dot_index_expression)] @receiver)
  (expression_list . value: (function_call name: (identifier) @_set (#eq? @_set "setmetatable")
    arguments: (arguments . (table_constructor)
      . (table_constructor (field name: (identifier) @name value: (function_definition)) @definition.function)))))
