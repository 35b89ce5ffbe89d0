-- :checkhealth seer: the binary, the version of the server it runs, the
-- Neovim version, and the go and C compiler that recording needs.

local M = {}

-- vim.health on 0.10+ (start/ok/...), 0.8/0.9 (report_*), require('health') on 0.7.
local h = vim.health or require('health')
local start = h.start or h.report_start
local ok = h.ok or h.report_ok
local info = h.info or h.report_info
local warn = h.warn or h.report_warn
local err = h.error or h.report_error

local function first_line(s)
  return (vim.split(s or '', '\n', { plain = true })[1] or ''):gsub('%s+$', '')
end

--- Runs cmd (a list) with input on stdin; returns its output or nil and why,
--- within timeout ms.
local function run(cmd, input, timeout)
  local out, errout, status
  local ok_start, job = pcall(vim.fn.jobstart, cmd, {
    stdout_buffered = true,
    stderr_buffered = true,
    on_stderr = function(_, data)
      errout = data or {}
    end,
    on_stdout = function(_, data)
      out = data or {}
    end,
    on_exit = function(_, code)
      status = code
    end,
  })
  if not ok_start or job <= 0 then
    return nil, 'cannot run ' .. table.concat(cmd, ' ')
  end
  if input then
    -- Not followed by chanclose: closing stdin can drop what is still
    -- queued. The input must end the process itself (exit).
    vim.fn.chansend(job, input)
  else
    vim.fn.chanclose(job, 'stdin')
  end
  -- Callbacks run from the event loop: wait for both.
  if not vim.wait(timeout, function()
    return status ~= nil and out ~= nil
  end, 20) then
    vim.fn.jobstop(job)
    return nil, 'timed out after ' .. timeout .. ' ms'
  end
  return table.concat(out, '\n'), status, table.concat(errout or {}, '\n')
end

local function message(tbl)
  local body = vim.fn.json_encode(tbl)
  return 'Content-Length: ' .. #body .. '\r\n\r\n' .. body
end

--- Asks the server for its name and version: initialize, then exit.
local function handshake(cmd)
  local input = message({
    jsonrpc = '2.0',
    id = 1,
    method = 'initialize',
    params = { processId = vim.NIL, rootUri = vim.NIL, capabilities = vim.empty_dict() },
  }) .. message({ jsonrpc = '2.0', id = 2, method = 'shutdown' }) .. message({ jsonrpc = '2.0', method = 'exit' })
  local out, why, stderr = run(cmd, input, 10000)
  if not out then
    return nil, why
  end
  local body = out:match('Content%-Length: %d+\r?\n\r?\n(%b{})')
  if not body then
    return nil, string.format('no answer to initialize (exit status %s, output %s, errors %s)', why, vim.inspect(out:sub(1, 200)), vim.inspect((stderr or ''):sub(-300)))
  end
  local okd, resp = pcall(vim.fn.json_decode, body)
  if not okd or type(resp) ~= 'table' or type(resp.result) ~= 'table' then
    return nil, 'bad answer to initialize: ' .. body:sub(1, 200)
  end
  return resp.result.serverInfo or {}
end

function M.check()
  local seer = require('seer')
  local cmd = seer.config.cmd or { 'seer', 'serve' }

  start('seer: Neovim')
  local v = vim.version()
  local version = string.format('%d.%d.%d', v.major, v.minor, v.patch)
  local how = vim.fn.has('nvim-0.11') == 1 and 'vim.lsp.config and vim.lsp.enable'
    or vim.lsp.start and 'vim.lsp.start'
    or 'vim.lsp.start_client and vim.lsp.buf_attach_client'
  if vim.fn.has('nvim-0.7') == 1 then
    ok('Neovim ' .. version .. ': seer starts with ' .. how)
  else
    err('Neovim ' .. version .. ': seer needs Neovim 0.7 or later')
  end

  start('seer: the server')
  local exe = vim.fn.exepath(cmd[1])
  if exe == '' then
    err(
      "'" .. cmd[1] .. "' is not executable (cmd = " .. vim.inspect(cmd) .. ')',
      { 'go install github.com/seer-tools/seer/cmd/seer@latest', "or require('seer').setup{ cmd = { '/path/to/seer', 'serve' } }" }
    )
  else
    ok('binary: ' .. exe)
    local server, why = handshake(cmd)
    if server then
      ok(string.format('%s answers initialize: %s %s', table.concat(cmd, ' '), server.name or '?', server.version or '(no version)'))
    else
      err(table.concat(cmd, ' ') .. ' does not speak the protocol: ' .. tostring(why))
    end
    if vim.fn.executable('go') == 1 then
      local bi = run({ 'go', 'version', '-m', exe }, nil, 10000)
      local mod = bi and bi:match('\n%s*mod%s+([^\n]+)')
      local rev = bi and bi:match('vcs%.revision=(%x+)')
      if mod then
        info('built from ' .. vim.trim((mod:gsub('%s+', ' '))) .. (rev and (' at ' .. rev:sub(1, 12)) or ''))
      end
    end
  end
  local clients = seer.clients()
  if #clients == 0 then
    info('no seer client is running (open a Go file in a module)')
  end
  for _, c in ipairs(clients) do
    info(string.format('client %d: root %s, %d buffer(s)', c.id, tostring(c.config.root_dir), #seer.buffers_of(c)))
  end

  start('seer: recording needs go and a C compiler')
  if vim.fn.executable('go') == 1 then
    local out = run({ 'go', 'version' }, nil, 10000)
    ok(first_line(out or 'go'))
  else
    err('go is not on PATH: seer records tests by building them with go', { 'install Go from https://go.dev/dl/' })
  end
  local cc
  for _, name in ipairs({ vim.env.CC or '', 'cc', 'gcc', 'clang' }) do
    if name ~= '' and vim.fn.executable(name) == 1 then
      cc = name
      break
    end
  end
  if cc then
    ok('C compiler: ' .. vim.fn.exepath(cc))
  else
    err('no C compiler (cc, gcc or clang) on PATH: -race builds need cgo, and seer compiles its recorder with it', { 'apt-get install gcc' })
  end
end

return M
