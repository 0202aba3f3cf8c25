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
