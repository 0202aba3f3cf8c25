; Objective-C's classes, protocols and methods; its C is read by c.scm. A class's
; ``@interface`` declares it and its ``@implementation`` defines it: in a file holding
; both, the implementation is the class's symbol (an interface, as a C prototype, is one
; only where the file does not define what it declares). A category's or an extension's
; (``@interface Shape (Drawing)``, ``@interface Shape ()``, ``@implementation Shape
; (Drawing)``) is no type of its own: what it declares is the class's.
(class_interface "@interface" . (identifier) @name "(" @_category) @extension
(class_interface "@interface" . (identifier) @name) @definition.class
(class_implementation "@implementation" . (identifier) @name "(" @_category) @extension
(class_implementation "@implementation" . (identifier) @name) @definition.class
(protocol_declaration "@protocol" . (identifier) @name) @definition.interface
; Named by their selectors (``moveTo:animated:``): ``written_names.selector``.
(method_declaration) @definition.method
(method_definition) @definition.method
