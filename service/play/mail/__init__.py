"""The mail desk: replies to Portolan mail read by their grammar, turned into moves or commands,
and answered; the reply addresses and menus the mails carry."""
