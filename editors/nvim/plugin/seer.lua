-- seer: nothing starts until require('seer').setup() is called, so that
-- the user's options are known first. :checkhealth seer works either way.
if vim.g.loaded_seer then
  return
end
vim.g.loaded_seer = 1
