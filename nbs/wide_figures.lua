-- A figure drawn wider than the text column takes the page's right margin as well (Quarto's column-page-right, the
-- "On this page" list folding away while it is on screen), so it is shown nearly at its drawn size instead of being
-- scaled down to the column. Set in _quarto.yml (filters); nbdev copies this file into _proc/ with the pages.
local COLUMN_PX = 720   -- the text column holds about 680 px at 1280 px; a figure up to this wide is scaled, not moved

function Div(div)
  if not div.classes:includes('cell-output-display') or div.classes:includes('column-page-right') then return nil end
  local wide = false
  div:walk({ Image = function(img)
    local w = tonumber((img.attributes.width or ''):match('^(%d+)'))
    if w and w > COLUMN_PX then wide = true end
  end })
  if wide then
    div.classes:insert('column-page-right')
    return div
  end
end
