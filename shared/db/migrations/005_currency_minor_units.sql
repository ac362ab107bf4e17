-- Amounts are numeric(14, 3): a currency has at most 3 minor units, so that no amount is stored
-- with fewer decimals than it was written with. Currencies of 4 (CLF, UYW) are not held.
alter table currencies
  drop constraint currencies_minor_units_check,
  add constraint currencies_minor_units_check check (minor_units between 0 and 3);
