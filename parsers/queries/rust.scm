(struct_item name: (type_identifier) @name) @definition.struct
(enum_item name: (type_identifier) @name) @definition.enum
(union_item name: (type_identifier) @name) @definition.struct
(trait_item name: (type_identifier) @name) @definition.trait
(type_item name: (type_identifier) @name) @definition.type
(associated_type name: (type_identifier) @name) @definition.type
(function_item name: (identifier) @name) @definition.function
(function_signature_item name: (identifier) @name) @definition.function
(impl_item type: (_) @receiver body: (declaration_list [(function_item name: (identifier) @name) (function_signature_item name: (identifier) @name)] @definition.method))
(impl_item type: (_) @receiver body: (declaration_list [(type_item name: (type_identifier) @name) (associated_type name: (type_identifier) @name)] @definition.type))
(impl_item trait: (_) @_trait type: (_) @receiver body: (declaration_list [(function_item name: (identifier) @name) (function_signature_item name: (identifier) @name)] @definition.method))
(impl_item trait: (_) @_trait type: (_) @receiver body: (declaration_list [(type_item name: (type_identifier) @name) (associated_type name: (type_identifier) @name)] @definition.type))
(mod_item name: (identifier) @name body: (declaration_list)) @namespace
(macro_definition name: (identifier) @name) @definition.function
