; Shell functions (``name() {…}``, ``function name {…}``, a subshell's body too).
(function_definition name: (word) @name) @definition.function
