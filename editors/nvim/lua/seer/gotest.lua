-- Finding the Go test function that encloses a position, from the text of
-- a buffer alone (no parser, no server): what :SeerPredict runs. The same
-- scan as editors/vscode/src/gotest.ts, over bytes.

local M = {}

local function ident_byte(c)
  return c ~= '' and (c:match('[%w_]') ~= nil or c:byte() >= 128)
end

local ident = '[%w_\128-\255]+'

--- Reports whether name is a Go test name: "Test" followed by nothing or
--- by a character that is not a lower-case letter.
function M.is_test_name(name)
  if name:sub(1, 4) ~= 'Test' then
    return false
  end
  local next = name:sub(5, 5)
  return next == '' or not next:match('%l')
end

-- A test's parameter list: one parameter of type *testing.T (any import
-- name, or a dot import).
local function test_signature(params)
  local inner = params:sub(2, -2)
  return inner:match('^%s*' .. ident .. '%s+%*%s*T%s*$') ~= nil
    or inner:match('^%s*' .. ident .. '%s+%*%s*' .. ident .. '%s*%.%s*T%s*$') ~= nil
end

local function strip_comments(s)
  return (s:gsub('/%*.-%*/', ' '):gsub('//[^\n]*', ' '))
end

--- Returns the top-level `func TestXxx(t *testing.T)` functions of a Go
--- file's text as {name, start, finish} (1-based byte offsets of `func`
--- and of the closing brace). Comments, strings, raw strings and runes are
--- skipped; a file with a syntax error still yields the tests before it.
function M.test_functions(text)
  local out = {}
  local depth, parens = 0, 0
  local header, body
  local i, n = 1, #text
  while i <= n do
    local c = text:sub(i, i)
    local c2 = text:sub(i + 1, i + 1)
    if c == '/' and c2 == '/' then
      i = text:find('\n', i, true) or n + 1
    elseif c == '/' and c2 == '*' then
      local close = text:find('*/', i + 2, true)
      i = close and close + 2 or n + 1
    elseif c == '`' then
      local close = text:find('`', i + 1, true)
      i = close and close + 1 or n + 1
    elseif c == '"' or c == "'" then
      i = i + 1
      while i <= n do
        local d = text:sub(i, i)
        if d == c or d == '\n' then
          break
        end
        i = i + (d == '\\' and 2 or 1)
      end
      i = i + 1
    elseif depth == 0 and c == 'f' and text:sub(i, i + 3) == 'func'
      and not ident_byte(text:sub(i - 1, i - 1)) and not ident_byte(text:sub(i + 4, i + 4)) then
      header, parens = i, 0
      i = i + 4
    else
      if c == '(' then
        parens = parens + 1
      elseif c == ')' then
        parens = parens - 1
      elseif c == '{' then
        if depth == 0 and header and parens == 0 then
          local h = strip_comments(text:sub(header, i - 1))
          local name, params = h:match('^func%s+(' .. ident .. ')%s*(%b())%s*$')
          if name and M.is_test_name(name) and test_signature(params) then
            body = { name = name, start = header }
          end
          header = nil
        end
        depth = depth + 1
      elseif c == '}' then
        depth = math.max(0, depth - 1)
        if body and depth == 0 then
          table.insert(out, { name = body.name, start = body.start, finish = i })
          body = nil
        end
      end
      i = i + 1
    end
  end
  if body then
    table.insert(out, { name = body.name, start = body.start, finish = n })
  end
  return out
end

--- Returns the name of the test whose declaration holds the 1-based byte
--- offset, or nil.
function M.enclosing_test(text, offset)
  for _, t in ipairs(M.test_functions(text)) do
    if t.start <= offset and offset <= t.finish then
      return t.name
    end
  end
  return nil
end

--- Returns the test around the cursor of a window (0: current).
function M.test_at_cursor(win)
  win = win or 0
  local buf = vim.api.nvim_win_get_buf(win)
  local row, col = unpack(vim.api.nvim_win_get_cursor(win))
  local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  local offset = col + 1
  for k = 1, row - 1 do
    offset = offset + #lines[k] + 1
  end
  return M.enclosing_test(table.concat(lines, '\n'), offset)
end

return M
