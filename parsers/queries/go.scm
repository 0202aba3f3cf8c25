(function_declaration name: (identifier) @name) @definition.function
(method_declaration receiver: (parameter_list (parameter_declaration type: (_) @receiver)) name: (field_identifier) @name) @definition.method
(type_spec name: (type_identifier) @name type: (struct_type)) @definition.struct
(type_spec name: (type_identifier) @name type: (interface_type)) @definition.interface
(type_spec name: (type_identifier) @name type: [(type_identifier) (qualified_type) (generic_type) (function_type) (map_type) (slice_type) (array_type) (channel_type) (pointer_type)]) @definition.type
(type_alias name: (type_identifier) @name) @definition.type
; A named interface's methods; an anonymous interface's (a struct field's `i interface { F() }`)
; are no type's members.
(type_spec type: (interface_type (method_elem name: (field_identifier) @name) @definition.method))
; A function a package-level variable holds (`var handler = func(w http.ResponseWriter) {…}`),
; in a group too; one in a function's body is a local.
(source_file (var_declaration (var_spec name: (identifier) @name value: (expression_list . (func_literal) .)) @definition.function))
(source_file (var_declaration (var_spec_list (var_spec name: (identifier) @name value: (expression_list . (func_literal) .)) @definition.function)))
