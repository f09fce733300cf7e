"""The hand's money: chips, fees before the deal, showdown, settlement, misdeal (above the floor
and the ledger, which it joins)."""
