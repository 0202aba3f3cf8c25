"""Lua on its real grammar, as Neovim's runtime writes it: functions named as written,
methods under their table's path, LuaCATS docs, and comments that are no part of a doc
or a signature."""

from __future__ import annotations

from recalld.parsers import parse
from recalld.parsers.debt import clean_comment_line

NEOVIM = b"""\
local M = {}

--- @class vim.lsp.Client
local Client = {}

--- Sends a request to the server.
---@param method string
---@return boolean
function Client:request(method, params, handler) -- luacheck: no unused args
  return true
end

function M.handlers.hover.close() end

--[==[ Deprecated. ]==]
M.on_exit = function(code, signal) end

local function validate(opts)
  local function check(key) -- the caller's own
    return opts[key] ~= nil
  end
  return check('name')
end

return M
"""


def test_lua_functions_are_named_and_signed_as_written():
    found = {s.qualname: (s.kind, s.signature, s.docstring) for s in parse("lua", NEOVIM).symbols[1:]}
    assert found == {
        "Client.request": ("method", "function Client:request(method, params, handler)",
                           "Sends a request to the server.\n@param method string\n@return boolean"),
        "M.handlers.hover.close": ("function", "function M.handlers.hover.close()", ""),
        "M.on_exit": ("function", "M.on_exit = function(code, signal)", "Deprecated."),
        "validate": ("function", "local function validate(opts)", ""),
    }  # fmt: skip


def test_a_method_of_a_nested_table_keeps_the_tables_path():
    data = b"function M.Client:stop(force)\n  return force\nend\n"
    (_module, stop) = parse("lua", data).symbols
    assert (stop.kind, stop.qualname) == ("method", "M.Client.stop")


def test_lua_comment_punctuation_is_no_text_and_other_brackets_stay():
    lines = ["--[[", "  Shapes.", "]]", "--]]", "--[[ One line. ]]", "--[==[ Level two. ]==]", "--- @param x",
             "-- see t[1][2]]", "/* C */"]  # fmt: skip
    assert [clean_comment_line(line, lua=True) for line in lines] == [
        "", "Shapes.", "", "", "One line.", "Level two.", "@param x", "see t[1][2]]", "C"
    ]  # fmt: skip
    # a C block comment's lines keep their dashes and brackets (git's ``compat/obstack.h``)
    c = b"/*\n  Reads a[i][j]]\n--Gosper's quote\n */\nint f(void);\n"
    assert parse("c", c).symbols[1].docstring == "Reads a[i][j]]\n--Gosper's quote"


def test_a_tables_functions_are_its_methods_and_a_metatables_are_its_tables():
    """Neovim's ``vim.diagnostic.handlers.signs = { show = function … }``, ``setmetatable(M,
    { __call = … })`` in ``version.lua``, ``vim.env = setmetatable({}, { __index = … })``; a
    function given to a call is none (``nvim_create_autocmd(…, { callback = function … })``)."""
    data = (b"M.handlers.signs = {\n  --- Shows the signs.\n  show = function(ns, bufnr) end,\n"
            b"  hide = function(ns)\n    return ns\n  end,\n  priority = 10,\n}\n"
            b"setmetatable(M, {\n  __call = function() return M.version() end,\n})\n"
            b"vim.env = setmetatable({}, { __index = function(_, k) return os.getenv(k) end })\n"
            b"vim.api.nvim_create_autocmd('BufRead', { callback = function(args) end })\n")  # fmt: skip
    found = [(s.kind, s.qualname, s.signature, s.docstring) for s in parse("lua", data).symbols[1:]]
    assert found == [
        ("method", "M.handlers.signs.show", "show = function(ns, bufnr)", "Shows the signs."),
        ("method", "M.handlers.signs.hide", "hide = function(ns)", ""),
        ("method", "M.__call", "__call = function()", ""),
        ("method", "vim.env.__index", "__index = function(_, k)", ""),
    ]  # fmt: skip


def test_a_tables_tables_and_a_returned_tables_functions_are_found():
    """nmap's libraries write their classes as tables within a table (``LCP = { ConfigOption =
    { new = function(self, …) … end } }``); busted's modules return theirs (``return {
    shuffle = function(t, seed) … end }``). A local function in such a function is its text,
    and a table returned from a function's body is that function's (an object it builds)."""
    data = (b"LCP = {\n  ConfigOption = {\n    MRU = 1,\n    -- Creates a config option.\n"
            b"    new = function(self, option)\n      local function check(o) return o end\n"
            b"      return check(option)\n    end,\n"
            b"    Codes = { parse = function(data) return data end },\n  },\n}\n"
            b"function LCP.make()\n  return { get = function() end }\nend\n"
            b"return {\n  shuffle = function(t, seed) end,\n  util = { join = function(a, b) end },\n}\n")  # fmt: skip
    found = [(s.kind, s.qualname, s.start_line, s.docstring) for s in parse("lua", data).symbols[1:]]
    assert found == [
        ("method", "LCP.ConfigOption.new", 5, "Creates a config option."),
        ("method", "LCP.ConfigOption.Codes.parse", 9, ""),
        ("function", "LCP.make", 12, ""),
        ("function", "shuffle", 16, ""),
        ("method", "util.join", 17, ""),
    ]  # fmt: skip


def test_nmaps_scripts_are_lua():
    from recalld.parsers.registry import language_for_path

    assert language_for_path("scripts/http-title.nse") == "lua"
